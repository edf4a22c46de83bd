"""Tools the model can call: ``@tool``, ``Tool``, ``Suspend``, ``ToolContext`` and the approval gate.

This package knows nothing of models or the loop; the runtime decides when a tool runs.
"""

from runyard.tools.approval import (
    APPROVAL_RESUME,
    ToolDenied,
    invoke_tool,
    require_approval,
    resume_validator,
)
from runyard.tools.context import ToolContext, ToolEvent, ToolEventSink, ToolProgress
from runyard.tools.suspend import Suspend
from runyard.tools.tool import IS_FROM_TOOLKIT, SOURCE_NODE_NAME, NeedsApproval, Tool, tool
from runyard.tools.validation import JsonSchemaValidator, ModelValidator, Validator, validator_for

__all__ = [
    "APPROVAL_RESUME",
    "IS_FROM_TOOLKIT",
    "SOURCE_NODE_NAME",
    "JsonSchemaValidator",
    "ModelValidator",
    "NeedsApproval",
    "Suspend",
    "Tool",
    "ToolContext",
    "ToolDenied",
    "ToolEvent",
    "ToolEventSink",
    "ToolProgress",
    "Validator",
    "invoke_tool",
    "require_approval",
    "resume_validator",
    "tool",
    "validator_for",
]
