"""Suite-wide guards: no test may reach a real model provider. Suite-wide fixtures: ``install``
(a tool-factory plugin installed for one test)."""

from __future__ import annotations

import pydantic_ai.models

from tool_plugins import install

__all__ = ["install"]

# pydantic-ai refuses to send requests to real providers while this is False; FunctionModel,
# TestModel and runyard's demo model are unaffected.
pydantic_ai.models.ALLOW_MODEL_REQUESTS = False
