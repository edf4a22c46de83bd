"""``AgentModel``: an agent's model as every call the agent makes reads it, through its middleware.

A run's turns go through the agent's ``MiddlewareStack``; so must every other model call made
for the agent — the thread's title, the observer and reflector of observational memory — or a
``PiiRedaction`` holds for the answer while the user's e-mail address reaches the title or
observer model untouched, and comes back in a stored title or observation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pydantic_ai.models import Model

from runyard.messages import AgentMessage
from runyard.models import ModelTurn, request_model
from runyard.runtime.middleware import NO_MIDDLEWARE, MiddlewareStack, ModelRequest

__all__ = ["AgentModel", "agent_model"]


@dataclass(frozen=True, slots=True)
class AgentModel:
    """``model`` asked through ``middleware``; ``using`` swaps the model, never the middleware."""

    model: Model
    middleware: MiddlewareStack = NO_MIDDLEWARE

    def using(self, model: Model | None) -> AgentModel:
        """The same middleware around ``model`` (None: this one's)."""
        return self if model is None else replace(self, model=model)

    async def ask(self, messages: Sequence[AgentMessage], instructions: str) -> ModelTurn:
        """One call without tools: ``before_model`` sees the request, ``after_model`` the turn."""
        request = ModelRequest(messages, instructions, self.model)
        return await self.middleware.call_model(request, self._send)

    async def _send(self, request: ModelRequest) -> ModelTurn:
        return await request_model(
            self.model, request.messages, instructions=request.instructions, tools=[]
        )


def agent_model(model: Model | AgentModel) -> AgentModel:
    """``model`` as an ``AgentModel`` (a bare model: without middleware)."""
    return model if isinstance(model, AgentModel) else AgentModel(model)
