"""Middleware around the agent loop: the ``Middleware`` hooks, their composition
(``MiddlewareStack``) and the built-ins (``PiiRedaction``, ``Summarisation``, ``ApprovalPolicy``).

See docs/runtime.md, "Middleware", for the hooks and their order.
"""

from runyard.runtime.middleware.approval_policy import ApprovalPolicy
from runyard.runtime.middleware.base import (
    CallTool,
    DeltaChannel,
    DeltaFilter,
    Middleware,
    ModelRequest,
    ToolCallRequest,
)
from runyard.runtime.middleware.pii_redaction import BUILTIN_PII_PATTERNS, PiiRedaction, Redactor
from runyard.runtime.middleware.stack import (
    NO_MIDDLEWARE,
    DeltaRelay,
    MiddlewareStack,
    SendModelRequest,
    ToolCallDone,
)
from runyard.runtime.middleware.summarisation import (
    DEFAULT_SUMMARY_INSTRUCTIONS,
    SUMMARY_PREFIX,
    Summarisation,
)

__all__ = [
    "BUILTIN_PII_PATTERNS",
    "NO_MIDDLEWARE",
    "DEFAULT_SUMMARY_INSTRUCTIONS",
    "SUMMARY_PREFIX",
    "ApprovalPolicy",
    "CallTool",
    "DeltaChannel",
    "DeltaFilter",
    "DeltaRelay",
    "Middleware",
    "MiddlewareStack",
    "ModelRequest",
    "PiiRedaction",
    "Redactor",
    "SendModelRequest",
    "Summarisation",
    "ToolCallDone",
    "ToolCallRequest",
]
