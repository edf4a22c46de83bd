"""runyard: a self-hostable agent inference service and the Python agent runtime inside it.

The SDK in one import::

    from runyard import Agent, tool, Suspend, ToolContext, AgentEvent

LangChain and LangGraph agents (the ``langgraph`` extra; docs/langgraph.md)::

    from runyard import GraphAgent, AgentGraph, CustomGraph, RunyardChatModel
"""

import importlib
import typing

if typing.TYPE_CHECKING:
    from runyard.agent import Agent, StreamResult
    from runyard.agent.graph_agent import GraphAgent
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
        AudioPart,
        CitationPart,
        ContentBlock,
        CustomMessage,
        FilePart,
        ImagePart,
        JsonPart,
        ReasoningPart,
        TextPart,
        ToolCallPart,
        ToolResultPart,
        VideoPart,
    )
    from runyard.models import FileReader, ModelProviderError, Usage
    from runyard.runtime import (
        AgentEvent,
        AgentEventData,
        AgentState,
        ApprovalPolicy,
        CheckpointStore,
        FileKeeper,
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
    from runyard.runtime.graph import AgentGraph, CustomGraph, RunyardChatModel, RunyardTool
    from runyard.telemetry import Telemetry, TelemetrySpan
    from runyard.tools import Suspend, Tool, ToolContext, ToolEvent, ToolProgress, tool

__all__ = [
    "Agent",
    "AgentGraph",
    "CustomGraph",
    "GraphAgent",
    "RunyardChatModel",
    "RunyardTool",
    "AgentEvent",
    "AgentEventData",
    "AgentMessage",
    "AgentState",
    "ApprovalPolicy",
    "AudioPart",
    "CheckpointStore",
    "CitationPart",
    "ConfigurationError",
    "ContentBlock",
    "CustomMessage",
    "FileKeeper",
    "FilePart",
    "FileReader",
    "GenerateResult",
    "ImagePart",
    "InMemoryCheckpointStore",
    "JsonPart",
    "MaxIterationsError",
    "Memory",
    "MemoryProtocol",
    "Middleware",
    "ModelProviderError",
    "ObservationalConfig",
    "OutputTokensExceededError",
    "PendingSuspend",
    "PiiRedaction",
    "ReasoningPart",
    "ResumeDataError",
    "ResumeError",
    "RunAbortedError",
    "RunError",
    "RunLimitError",
    "RunStatus",
    "RunTimeoutError",
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
    "ToolError",
    "ToolEvent",
    "ToolProgress",
    "ToolResultPart",
    "Usage",
    "VideoPart",
    "WorkingMemoryConfig",
    "tool",
]

# Where each public name lives. Importing a name's module is deferred to its first use (PEP 562),
# so ``import runyard`` (and ``runyard --help``, which runs this file) loads no model layer.
_SOURCES = {
    "Agent": "runyard.agent",
    # LangGraph agents (the langgraph extra): imported only when asked for.
    "GraphAgent": "runyard.agent.graph_agent",
    "AgentGraph": "runyard.runtime.graph",
    "CustomGraph": "runyard.runtime.graph",
    "RunyardChatModel": "runyard.runtime.graph",
    "RunyardTool": "runyard.runtime.graph",
    "StreamResult": "runyard.agent",
    "ConfigurationError": "runyard.errors",
    "MaxIterationsError": "runyard.errors",
    "OutputTokensExceededError": "runyard.errors",
    "ResumeDataError": "runyard.errors",
    "ResumeError": "runyard.errors",
    "RunAbortedError": "runyard.errors",
    "RunError": "runyard.errors",
    "RunLimitError": "runyard.errors",
    "RunTimeoutError": "runyard.errors",
    "ToolError": "runyard.errors",
    "Memory": "runyard.memory",
    "ObservationalConfig": "runyard.memory",
    "SemanticRecallConfig": "runyard.memory",
    "TitleConfig": "runyard.memory",
    "WorkingMemoryConfig": "runyard.memory",
    "AgentMessage": "runyard.messages",
    "CustomMessage": "runyard.messages",
    "FilePart": "runyard.messages",
    "ImagePart": "runyard.messages",
    "AudioPart": "runyard.messages",
    "VideoPart": "runyard.messages",
    "JsonPart": "runyard.messages",
    "CitationPart": "runyard.messages",
    "ContentBlock": "runyard.messages",
    "FileReader": "runyard.models",
    "ReasoningPart": "runyard.messages",
    "TextPart": "runyard.messages",
    "ToolCallPart": "runyard.messages",
    "ToolResultPart": "runyard.messages",
    "ModelProviderError": "runyard.models",
    "Usage": "runyard.models",
    "AgentEvent": "runyard.runtime",
    "FileKeeper": "runyard.runtime",
    "AgentEventData": "runyard.runtime",
    "AgentState": "runyard.runtime",
    "ApprovalPolicy": "runyard.runtime",
    "CheckpointStore": "runyard.runtime",
    "GenerateResult": "runyard.runtime",
    "InMemoryCheckpointStore": "runyard.runtime",
    "MemoryProtocol": "runyard.runtime",
    "Middleware": "runyard.runtime",
    "PendingSuspend": "runyard.runtime",
    "PiiRedaction": "runyard.runtime",
    "RunStatus": "runyard.runtime",
    "StreamChunk": "runyard.runtime",
    "SubAgentUsage": "runyard.runtime",
    "Summarisation": "runyard.runtime",
    "Telemetry": "runyard.telemetry",
    "TelemetrySpan": "runyard.telemetry",
    "Suspend": "runyard.tools",
    "Tool": "runyard.tools",
    "ToolContext": "runyard.tools",
    "ToolEvent": "runyard.tools",
    "ToolProgress": "runyard.tools",
    "tool": "runyard.tools",
}


def __getattr__(name: str) -> typing.Any:
    try:
        source = _SOURCES[name]
    except KeyError:
        raise AttributeError(f"module 'runyard' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
