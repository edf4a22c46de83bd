"""Suite-wide guards: no test may reach a real model provider. Suite-wide fixtures: ``install``
(a tool-factory plugin installed for one test)."""

from __future__ import annotations

import os

import pydantic_ai.models

from tool_plugins import install

__all__ = ["install"]

# pydantic-ai refuses to send requests to real providers while this is False; FunctionModel,
# TestModel and runyard's demo model are unaffected.
pydantic_ai.models.ALLOW_MODEL_REQUESTS = False

# Every `runyard serve` a test starts inherits this: gRPC off unless the test asks for a port,
# or servers running side by side (replicas, parallel helpers) would all want 8401.
os.environ.setdefault("RUNYARD_GRPC_PORT", "0")
