"""The agent runtime: the tool-calling loop, suspension and resume, run state, events, chunks.

It knows memory and checkpoints only through the Protocols it defines (``MemoryProtocol``,
``CheckpointStore``) and never imports storage or SQL.
"""

from runyard.runtime.agent_model import AgentModel, agent_model
from runyard.runtime.chunks import (
    ChunkSink,
    CustomDataChunk,
    ErrorChunk,
    FinishChunk,
    MessageChunk,
    ModelFallbackChunk,
    ReasoningDeltaChunk,
    StreamChunk,
    SubAgentChunk,
    SubAgentEndChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolCallSuspendedChunk,
    ToolEventChunk,
    ToolExecutionStartChunk,
    ToolResultChunk,
)
from runyard.runtime.collector import ResultCollector
from runyard.runtime.control import RunControl
from runyard.runtime.events import AgentEvent, AgentEventBus, AgentEventData, EventHandler
from runyard.runtime.journal import (
    INTERRUPTED_TOOL_ERROR,
    InMemoryRunJournal,
    JournalCall,
    RunJournal,
)
from runyard.runtime.loop import AgentRuntime
from runyard.runtime.memory import MemoryContext, MemoryProtocol, MemoryScope
from runyard.runtime.message_list import AgentMessageList, SerializedMessageList
from runyard.runtime.middleware import (
    ApprovalPolicy,
    Middleware,
    MiddlewareStack,
    ModelRequest,
    PiiRedaction,
    Summarisation,
    ToolCallRequest,
)
from runyard.runtime.orphans import strip_orphaned_tool_messages
from runyard.runtime.produced_files import FileKeeper
from runyard.runtime.results import (
    AgentToolOutput,
    GenerateResult,
    PendingSuspend,
    SubAgentUsage,
    ToolCallRecord,
    total_usage,
    usage_as_sub_agent,
)
from runyard.runtime.spec import RuntimeSpec, TurnSavedHook
from runyard.runtime.state import (
    AgentState,
    CheckpointStore,
    GraphState,
    InMemoryCheckpointStore,
    NestedSuspension,
    PendingToolCall,
    Question,
    RunStateManager,
    RunStatus,
)
from runyard.runtime.structured_output import StructuredOutput
from runyard.runtime.sub_agent_suspension import SubAgentAnswer, SubAgentSuspend
from runyard.runtime.title import TitleWriter, clean_title, title_thread

__all__ = [
    "AgentModel",
    "INTERRUPTED_TOOL_ERROR",
    "AgentEvent",
    "AgentEventBus",
    "AgentEventData",
    "AgentMessageList",
    "AgentRuntime",
    "AgentState",
    "GraphState",
    "AgentToolOutput",
    "ApprovalPolicy",
    "CheckpointStore",
    "ChunkSink",
    "CustomDataChunk",
    "ErrorChunk",
    "EventHandler",
    "FileKeeper",
    "FinishChunk",
    "GenerateResult",
    "InMemoryCheckpointStore",
    "InMemoryRunJournal",
    "JournalCall",
    "MemoryContext",
    "MemoryProtocol",
    "MemoryScope",
    "MessageChunk",
    "ModelFallbackChunk",
    "Middleware",
    "MiddlewareStack",
    "ModelRequest",
    "NestedSuspension",
    "PendingSuspend",
    "PendingToolCall",
    "PiiRedaction",
    "Question",
    "ReasoningDeltaChunk",
    "ResultCollector",
    "RunControl",
    "RunJournal",
    "RunStateManager",
    "RunStatus",
    "RuntimeSpec",
    "SerializedMessageList",
    "StreamChunk",
    "SubAgentChunk",
    "SubAgentEndChunk",
    "StructuredOutput",
    "SubAgentAnswer",
    "SubAgentSuspend",
    "SubAgentUsage",
    "Summarisation",
    "TextDeltaChunk",
    "TitleWriter",
    "ToolCallDeltaChunk",
    "ToolCallRecord",
    "ToolCallRequest",
    "ToolCallSuspendedChunk",
    "ToolEventChunk",
    "ToolExecutionStartChunk",
    "ToolResultChunk",
    "TurnSavedHook",
    "agent_model",
    "clean_title",
    "strip_orphaned_tool_messages",
    "title_thread",
    "total_usage",
    "usage_as_sub_agent",
]
