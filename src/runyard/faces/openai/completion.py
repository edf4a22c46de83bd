"""``completion``: the ``chat.completion`` an answer in one body gives, folded from the same
chunks the stream sends (``CompletionChunks``, made with ``include_usage``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["completion"]

_ERROR_STATUS = {"run_failed": 502, "server_going_away": 503}
"""The status of an answer whose run failed (its model, a limit: 502, as a gateway whose
upstream failed), or whose server went away before the run ended (503: retry elsewhere)."""


def completion(chunks: Iterable[Any]) -> tuple[int, dict[str, Any]]:
    """The status and body: the completion, or the error envelope a chunk carried."""
    head: dict[str, Any] = {}
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    reasoning = ""
    extra: dict[str, Any] = {}
    finish_reason = None
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue  # [DONE]
        if "error" in chunk:
            return _ERROR_STATUS[chunk["error"]["code"]], chunk
        head = {key: chunk[key] for key in ("id", "created", "model")}
        if "usage" in chunk:
            extra["usage"] = chunk["usage"]
        if "x_runyard" in chunk:
            extra["x_runyard"] = chunk["x_runyard"]
        for choice in chunk["choices"]:
            delta = choice["delta"]
            message["content"] += delta.get("content") or ""
            reasoning += delta.get("reasoning_content") or ""
            for listed in ("images", "x_runyard_content"):
                if delta.get(listed):
                    message.setdefault(listed, []).extend(delta[listed])
            finish_reason = choice["finish_reason"] or finish_reason
    if reasoning:
        message["reasoning_content"] = reasoning
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
    return 200, {**head, "object": "chat.completion", "choices": [choice], **extra}
