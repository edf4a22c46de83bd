"""``RedactingStore``: a ``Store`` that writes no secret, whatever its callers hand it.

The server wraps its one store in it, so the messages memory saves (a tool result that echoed a
key, an answer quoting it), what a run's start stores (its message and its opening events), the
checkpoints of suspended runs, confirmation payloads, working memory, plans, observations, the
text stored beside embeddings, thread titles and metadata, and a failed run's reason are
redacted on their way into the database, by one ``SecretRedactor``.
Other events are redacted earlier, by their writer, since they reach clients before any store
read.
Everything else (reads, runs, leases, keys, catalog versions) passes through unchanged, by
``runyard.storage.ForwardingStore``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar

from pydantic import BaseModel

from runyard.redaction import SecretRedactor
from runyard.storage import (
    Confirmation,
    EmbeddingEntry,
    ForwardingStore,
    LedgerWrite,
    MemoryScope,
    Message,
    Observation,
    OpeningEvent,
    Plan,
    RunQuota,
    RunRecord,
    RunSnapshot,
    RunStart,
    RunStatus,
    Store,
    StoredEvent,
    Thread,
    ToolCallEntry,
    WorkingMemory,
)

__all__ = ["RedactingStore", "redacted_model"]

_M = TypeVar("_M", bound=BaseModel)


def redacted_model(redactor: SecretRedactor, model: _M) -> _M:
    """``model`` with every string in it redacted; the same object when it held no secret."""
    data = model.model_dump(mode="json")
    redacted = redactor.redact_data(data)
    return model if redacted is data else type(model).model_validate(redacted)


class RedactingStore(ForwardingStore):
    """``inner`` with its free-text writes passed through ``redactor`` first."""

    def __init__(self, inner: Store, redactor: SecretRedactor) -> None:
        super().__init__(inner)
        self.redactor = redactor

    async def save_thread(
        self,
        thread_id: str,
        *,
        tenant_id: str,
        resource_id: str,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        return await self.inner.save_thread(
            thread_id,
            tenant_id=tenant_id,
            resource_id=resource_id,
            title=None if title is None else self.redactor.redact(title),
            metadata=self.redactor.redact_data(metadata),
        )

    async def set_thread_title(
        self, thread_id: str, title: str, *, tenant_id: str, resource_id: str
    ) -> bool:
        return await self.inner.set_thread_title(
            thread_id, self.redactor.redact(title), tenant_id=tenant_id, resource_id=resource_id
        )

    async def save_messages(
        self, thread_id: str, messages: Sequence[Message], /, *, tenant_id: str, resource_id: str
    ) -> None:
        clean = [redacted_model(self.redactor, m) for m in messages]
        await self.inner.save_messages(
            thread_id, clean, tenant_id=tenant_id, resource_id=resource_id
        )

    async def start_run(
        self,
        run_id: str,
        messages: Sequence[Message],
        /,
        *,
        thread_id: str,
        tenant_id: str,
        resource_id: str,
        owner: str,
        lease_until: int | None = None,
        agent_id: str | None = None,
        quota: RunQuota | None = None,
        metadata: dict[str, Any] | None = None,
        opening: Sequence[OpeningEvent] = (),
    ) -> RunStart:
        return await self.inner.start_run(
            run_id,
            [redacted_model(self.redactor, m) for m in messages],
            thread_id=thread_id,
            tenant_id=tenant_id,
            resource_id=resource_id,
            owner=owner,
            lease_until=lease_until,
            agent_id=agent_id,
            quota=quota,
            metadata=self.redactor.redact_data(metadata),
            opening=[replace(e, data=self.redactor.redact_data(e.data)) for e in opening],
        )

    async def close_run(
        self,
        run_id: str,
        status: RunStatus,
        *,
        epoch: int,
        reason: str | None = None,
        final_events: Sequence[StoredEvent] = (),
        snapshot: RunSnapshot | None = None,
    ) -> RunRecord:
        # The events are redacted by their writer already, and the snapshot is folded from them.
        clean = None if reason is None else self.redactor.redact(reason)
        return await self.inner.close_run(
            run_id, status, epoch=epoch, reason=clean, final_events=final_events, snapshot=snapshot
        )

    async def save_checkpoint(
        self, key: str, state: dict[str, Any], *, expires_at: int | None = None
    ) -> None:
        await self.inner.save_checkpoint(
            key, self.redactor.redact_data(state), expires_at=expires_at
        )

    async def record_progress(
        self,
        run_id: str,
        calls: Sequence[ToolCallEntry],
        /,
        *,
        epoch: int,
        state: dict[str, Any] | None = None,
    ) -> None:
        kept = None if state is None else self.redactor.redact_data(state)
        await self.inner.record_progress(run_id, self._clean(calls), epoch=epoch, state=kept)

    async def append_events(
        self,
        thread_id: str,
        events: Sequence[StoredEvent],
        /,
        *,
        ledger: Sequence[LedgerWrite] = (),
    ) -> None:
        # The events are redacted by their writer already (it shows them as it stores them).
        clean = [
            replace(
                journaled,
                calls=tuple(self._clean(journaled.calls)),
                state=None
                if journaled.state is None
                else self.redactor.redact_data(journaled.state),
            )
            for journaled in ledger
        ]
        await self.inner.append_events(thread_id, events, ledger=clean)

    def _clean(self, calls: Sequence[ToolCallEntry]) -> list[ToolCallEntry]:
        """A settled call's outcome is what the tool returned, and may echo a key."""
        return [
            c if c.outcome is None else replace(c, outcome=self.redactor.redact_data(c.outcome))
            for c in calls
        ]

    async def create_confirmation(
        self,
        request_id: str,
        *,
        thread_id: str,
        run_id: str,
        tool_call_id: str,
        payload: dict[str, Any],
    ) -> Confirmation:
        return await self.inner.create_confirmation(
            request_id,
            thread_id=thread_id,
            run_id=run_id,
            tool_call_id=tool_call_id,
            payload=self.redactor.redact_data(payload),
        )

    async def save_working_memory(
        self,
        content: str,
        *,
        tenant_id: str,
        resource_id: str,
        scope: MemoryScope,
        thread_id: str | None = None,
    ) -> WorkingMemory:
        return await self.inner.save_working_memory(
            self.redactor.redact(content),
            tenant_id=tenant_id,
            resource_id=resource_id,
            scope=scope,
            thread_id=thread_id,
        )

    async def append_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        /,
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        await self.inner.append_observations(
            thread_id,
            self._observations(observations),
            tenant_id=tenant_id,
            resource_id=resource_id,
        )

    async def replace_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        /,
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        await self.inner.replace_observations(
            thread_id,
            self._observations(observations),
            tenant_id=tenant_id,
            resource_id=resource_id,
        )

    async def condense_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        /,
        *,
        replaces: Sequence[str],
        tenant_id: str,
        resource_id: str,
    ) -> bool:
        return await self.inner.condense_observations(
            thread_id,
            self._observations(observations),
            replaces=replaces,
            tenant_id=tenant_id,
            resource_id=resource_id,
        )

    async def save_embeddings(
        self,
        thread_id: str,
        entries: Sequence[EmbeddingEntry],
        /,
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        clean = [replace(e, text=self.redactor.redact(e.text)) for e in entries]
        await self.inner.save_embeddings(
            thread_id, clean, tenant_id=tenant_id, resource_id=resource_id
        )

    def _observations(self, observations: Sequence[Observation]) -> list[Observation]:
        redact = self.redactor
        return [
            replace(o, text=redact.redact(o.text), metadata=redact.redact_data(o.metadata))
            for o in observations
        ]

    async def save_plan(
        self, thread_id: str, data: dict[str, Any], *, tenant_id: str, resource_id: str
    ) -> Plan:
        return await self.inner.save_plan(
            thread_id, self.redactor.redact_data(data), tenant_id=tenant_id, resource_id=resource_id
        )
