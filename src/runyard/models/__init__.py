"""runyard's model layer: provider models, one model call, message conversion, embedders, the demo model.

Everything provider-specific goes through pydantic-ai's model layer (``Model.request`` /
``request_stream``), and its messages are mapped to and from runyard's in ``conversion`` only.
Nothing here runs a tool or keeps a conversation: that is the runtime's job.
"""

from pydantic_ai.models import Model

from runyard.errors import ConfigurationError
from runyard.models.conversion import from_model_messages, from_model_response, to_model_messages
from runyard.models.demo import DemoModel
from runyard.models.embedders import (
    Embedder,
    ModelEmbedder,
    check_embedder_name,
    resolve_embedder,
)
from runyard.models.errors import ModelProviderError, provider_errors
from runyard.models.fallback import FallbackHook, FallbackReason, ModelFallback
from runyard.models.file_references import (
    FileReader,
    MissingFileReaderError,
    has_file_references,
    read_file_references,
)
from runyard.models.request import ModelCall, request_model, stream_model
from runyard.models.resolve import KNOWN_PROVIDERS, check_model_name, model_label, resolve_model
from runyard.models.specs import OutputSpec, ToolSpec
from runyard.models.tokens import estimate_message_tokens, estimate_tokens
from runyard.models.turn import (
    FinishReason,
    ModelDelta,
    ModelTurn,
    ReasoningDelta,
    TextDelta,
    ToolCallDelta,
)
from runyard.models.usage import Usage, response_cost

__all__ = [
    "KNOWN_PROVIDERS",
    "ConfigurationError",
    "DemoModel",
    "Embedder",
    "FallbackHook",
    "FallbackReason",
    "FileReader",
    "MissingFileReaderError",
    "FinishReason",
    "Model",
    "ModelDelta",
    "ModelEmbedder",
    "ModelFallback",
    "ModelProviderError",
    "ModelTurn",
    "OutputSpec",
    "ReasoningDelta",
    "TextDelta",
    "ToolCallDelta",
    "ToolSpec",
    "Usage",
    "check_embedder_name",
    "check_model_name",
    "estimate_message_tokens",
    "estimate_tokens",
    "from_model_messages",
    "from_model_response",
    "has_file_references",
    "read_file_references",
    "model_label",
    "provider_errors",
    "ModelCall",
    "request_model",
    "resolve_embedder",
    "resolve_model",
    "response_cost",
    "stream_model",
    "to_model_messages",
]
