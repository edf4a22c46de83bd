"""Which run an ``Invoke`` or ``Stream`` call follows, and from which event of the thread's log.

- A message starts a run (as ``POST /v1/chat`` does) and the call follows it from its start.
- No message: the call follows the thread's open run, else its latest one (after ``Confirm``,
  or to pick a dropped stream up again with ``after_event_id``).
- ``idempotency_key``: the user message's id is derived from the thread and the key, so the
  run a message started is found again by its ``run-start`` (which names the message) — a
  retried call follows the run the first attempt started, running, suspended or ended, and
  never starts a second one. The message, the run and its ``run-start`` are stored together
  under the thread's lock; an open run with the message and no ``run-start`` (one an earlier
  version opened, which logged it a moment later) is known by the stored message.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from runyard.grpc.content_blocks import block_from_pb
from runyard.grpc.status import CallError
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.messages import ContentBlock
from runyard.service import FollowedRun, Owner, RunActive, RunEntry, ServiceParts, newest_event
from runyard.storage import StoredEvent

__all__ = [
    "ENTRY_METADATA",
    "call_entry",
    "follow_call",
    "request_content",
    "required",
    "routing_context",
]

ENTRY_METADATA = "x-runyard-entry"
"""The call metadata a client of runyard's own sends to name its run's entry: runyard's Temporal
activity sends ``temporal``; any other value (or none) is ``grpc``."""

_blocks: TypeAdapter[list[ContentBlock]] = TypeAdapter(list[ContentBlock])


def call_entry(metadata: Sequence[tuple[str, str | bytes]]) -> RunEntry:
    """How a run this call starts came in: ``temporal`` when ``ENTRY_METADATA`` says so."""
    said = dict(metadata).get(ENTRY_METADATA)
    return "temporal" if said == "temporal" else "grpc"


async def follow_call(
    parts: ServiceParts, owner: Owner, request: pb.InvokeRequest, entry: RunEntry = "grpc"
) -> FollowedRun:
    """The run the call follows, started here (as ``entry``) when the request's message asks
    for one."""
    required(request.thread_id, "thread_id")
    key = owner.thread_key(request.thread_id)
    after = request.after_event_id
    if after < 0:
        raise CallError("INVALID_ARGUMENT", "invalid_request", "must be >= 0", "after_event_id")
    content = request_content(request.content)
    if not request.message and not content:
        return await _latest_run(parts, owner, key, after)
    message_id = _message_id(key, request.idempotency_key) if request.idempotency_key else None
    if message_id is not None:
        found = await _run_of_message(parts, owner, key, message_id, after)
        if found is not None:
            return found
    cursor = max(after, await parts.store.last_event_id(key))
    try:
        run_id = await parts.runs.start(
            owner,
            request.thread_id,
            request.message,
            agent=request.agent_id if request.HasField("agent_id") else None,
            context=routing_context(owner, request.context),
            message_id=message_id,
            content=content,
            entry=entry,
        )
    except RunActive:
        # Another attempt with the same key may hold the thread: follow its run, not a 409.
        found = None
        if message_id is not None:
            found = await _run_of_message(parts, owner, key, message_id, after)
        if found is None:
            raise
        return found
    return FollowedRun(key, run_id, cursor)


def request_content(blocks: Sequence[pb.ContentBlock]) -> list[ContentBlock]:
    """The request's content blocks, validated as ``POST /v1/chat``'s (``INVALID_ARGUMENT``
    naming ``content.{index}.{field}``)."""
    try:
        return _blocks.validate_python([block_from_pb(block) for block in blocks])
    except ValidationError as exc:
        error = exc.errors()[0]
        index, *rest = error["loc"]
        where = ".".join(str(p) for p in (index, *rest[1:]))  # without the union's tag
        raise CallError(
            "INVALID_ARGUMENT", "invalid_content", error["msg"], f"content.{where}"
        ) from None


def required(value: str, field: str) -> None:
    """``INVALID_ARGUMENT`` naming ``field`` when ``value`` is empty."""
    if not value:
        raise CallError("INVALID_ARGUMENT", "invalid_request", "required", field=field)


def routing_context(owner: Owner, context: pb.InvocationContext) -> dict[str, Any]:
    """The context routing reads; its tenant and user, when given, must be the caller's."""
    for name, given, actual in (
        ("tenant", context.tenant, owner.tenant_id),
        ("user", context.user, owner.user_id),
    ):
        if given and given != actual:
            raise CallError(
                "INVALID_ARGUMENT",
                "invalid_context",
                f"{given!r} is not the caller's {name} ({actual!r}); authentication decides it",
                field=f"context.{name}",
            )
    fields: dict[str, Any] = {"flags": dict(context.flags), "metadata": dict(context.metadata)}
    if context.user_role:
        fields["user_role"] = context.user_role
    if context.ui_page:
        fields["ui_page"] = context.ui_page
    return fields


def _message_id(thread_key: str, idempotency_key: str) -> str:
    digest = hashlib.sha256(f"{thread_key}\0{idempotency_key}".encode()).hexdigest()
    return f"msg-idem-{digest[:32]}"


async def _latest_run(parts: ServiceParts, owner: Owner, key: str, after: int) -> FollowedRun:
    open_run = await parts.store.get_active_run(key)
    wanted = open_run.run_id if open_run is not None else None
    start = await _last_run_start(parts, key, lambda e: wanted is None or e.run_id == wanted)
    if start is not None:
        return FollowedRun(key, start.run_id or "", max(after, start.id - 1))
    if open_run is not None:  # opened by an earlier version, which logged its run-start later
        return FollowedRun(key, open_run.run_id, max(after, await parts.store.last_event_id(key)))
    raise CallError(
        "NOT_FOUND",
        "run_not_found",
        f"thread {owner.thread_id_of(key)!r} has no run to follow; send a message",
        field="thread_id",
    )


async def _run_of_message(
    parts: ServiceParts, owner: Owner, key: str, message_id: str, after: int
) -> FollowedRun | None:
    """The run the message ``message_id`` started, if it did (a message is stored with its run,
    so an unknown message, the usual case, costs one indexed read)."""
    stored = await parts.store.get_messages_by_ids(
        key, [message_id], tenant_id=owner.tenant_id, resource_id=owner.user_id
    )
    if not stored:
        return None
    scanned = await parts.store.last_event_id(key)
    start = await _last_run_start(
        parts, key, lambda e: e.data.get("payload", {}).get("messageId") == message_id
    )
    if start is not None:
        return FollowedRun(key, start.run_id or "", max(after, start.id - 1))
    open_run = await parts.store.get_active_run(key)
    if open_run is None:
        return None  # stored, but its run never started: a new one may answer it
    # Its run is open without a run-start (an earlier version logged it after the start): every
    # event of it comes later.
    return FollowedRun(key, open_run.run_id, max(after, scanned))


async def _last_run_start(
    parts: ServiceParts, key: str, wanted: Callable[[StoredEvent], bool]
) -> StoredEvent | None:
    """The newest ``run-start`` of the thread that is ``wanted``."""
    return await newest_event(parts.store, key, lambda e: e.type == "run-start" and wanted(e))
