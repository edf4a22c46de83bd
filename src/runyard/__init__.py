"""runyard: a self-hostable agent inference service and the Python agent runtime inside it.

The SDK in one import::

    from runyard import Agent, tool, Suspend, ToolContext, AgentEvent
"""

from runyard.agent import Agent, StreamResult
from runyard.errors import (
    ConfigurationError,
    MaxIterationsError,
    OutputTokensExceededError,
    ResumeDataError,
    ResumeError,
    RunAbortedError,
    RunError,
    RunLimitError,
    RunTimeoutError,
    ToolError,
)
from runyard.memory import (
    Memory,
    ObservationalConfig,
    SemanticRecallConfig,
    TitleConfig,
    WorkingMemoryConfig,
)
from runyard.messages import (
    AgentMessage,
    CustomMessage,
    FilePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from runyard.models import ModelProviderError, Usage
from runyard.runtime import (
    AgentEvent,
    AgentEventData,
    AgentState,
    ApprovalPolicy,
    CheckpointStore,
    GenerateResult,
    InMemoryCheckpointStore,
    MemoryProtocol,
    Middleware,
    PendingSuspend,
    PiiRedaction,
    RunStatus,
    StreamChunk,
    SubAgentUsage,
    Summarisation,
)
from runyard.telemetry import Telemetry, TelemetrySpan
from runyard.tools import Suspend, Tool, ToolContext, ToolEvent, ToolProgress, tool

__all__ = [
    "Agent",
    "AgentEvent",
    "AgentEventData",
    "AgentMessage",
    "AgentState",
    "ApprovalPolicy",
    "CheckpointStore",
    "ConfigurationError",
    "CustomMessage",
    "FilePart",
    "GenerateResult",
    "InMemoryCheckpointStore",
    "MaxIterationsError",
    "Memory",
    "MemoryProtocol",
    "Middleware",
    "ModelProviderError",
    "OutputTokensExceededError",
    "ObservationalConfig",
    "PendingSuspend",
    "PiiRedaction",
    "ReasoningPart",
    "ResumeDataError",
    "ResumeError",
    "RunAbortedError",
    "RunError",
    "RunLimitError",
    "RunTimeoutError",
    "RunStatus",
    "SemanticRecallConfig",
    "StreamChunk",
    "StreamResult",
    "SubAgentUsage",
    "Summarisation",
    "Suspend",
    "Telemetry",
    "TelemetrySpan",
    "TextPart",
    "TitleConfig",
    "Tool",
    "ToolCallPart",
    "ToolContext",
    "ToolEvent",
    "ToolProgress",
    "ToolError",
    "ToolResultPart",
    "Usage",
    "WorkingMemoryConfig",
    "tool",
]
