"""The OpenAPI shapes of the OpenAI-compatible face's answers (``chat.completion``, its chunks,
the model list), as OpenAI documents them, with runyard's ``x_runyard`` extension."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from runyard.service import ServedAgent

__all__ = ["ChatCompletion", "ModelCard", "ModelList"]


class ModelCard(BaseModel):
    """One agent as an OpenAI model."""

    id: str = Field(description="the agent's id: the `model` of a chat completion")
    object: Literal["model"] = "model"
    created: int = Field(description="always 0: an agent has no creation time")
    owned_by: str = Field(description="the tenant whose agent it is, or `runyard` (shared)")
    x_runyard: dict[str, Any] = Field(
        description='`version` (pin it as `model: "id@version"`), `default`, `description`'
    )

    @classmethod
    def of(cls, agent: ServedAgent) -> ModelCard:
        """The card of an agent the caller may run."""
        about = {
            "version": agent.version,
            "default": agent.default,
            "description": agent.description,
        }
        return cls(id=agent.name, created=0, owned_by=agent.tenant or "runyard", x_runyard=about)


class ModelList(BaseModel):
    """``GET /openai/v1/models``: the caller's agents, the default first."""

    object: Literal["list"] = "list"
    data: list[ModelCard]


class CompletionMessage(BaseModel):
    """The assistant's answer."""

    role: Literal["assistant"]
    content: str
    reasoning_content: str | None = Field(
        default=None, description="the agent's visible reasoning, when it gave any"
    )


class CompletionChoice(BaseModel):
    """The one choice."""

    index: Literal[0]
    message: CompletionMessage
    logprobs: None
    finish_reason: Literal["stop"] | None


class Usage(BaseModel):
    """What the whole run spent (its sub-agents included)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    """``POST /openai/v1/chat/completions`` without ``stream``."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[CompletionChoice]
    usage: Usage | None = Field(
        default=None, description="absent while the run waits for approval (not over yet)"
    )
    x_runyard: dict[str, Any] = Field(
        description="`threadId`, `runId`, `status` (`completed`, `awaiting_approval`, "
        "`awaiting_client`: on a file request only, `cancelled`), `approvals` while awaiting (each `requestId`, `toolCallId`, `toolName`, "
        "`args`, `message`: the question, `confirmUrl`), `output` for an agent with an `output_schema` (docs/faces.md)"
    )
