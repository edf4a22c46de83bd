"""``ForwardingStore``: a ``Store`` that hands every call to another one, unchanged.

The base of a store that changes a few calls and passes the rest on (``RedactingStore``):
every method of the ``Store`` protocol is written out, so the type checker sees a complete
``Store`` and a method the protocol gains is an error here until it is forwarded too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from runyard.storage import (
    AgentActivation,
    AgentVersion,
    ApiKey,
    Backend,
    Confirmation,
    EmbeddingEntry,
    EmbeddingHit,
    MemoryScope,
    Message,
    MessageCursor,
    Observation,
    ObservationCursor,
    Plan,
    QueuedWork,
    RunProgress,
    RunQuota,
    RunRecord,
    RunSnapshot,
    RunStatus,
    SettledCalls,
    Store,
    StoredEvent,
    Thread,
    ToolCallEntry,
    VectorSearch,
    WorkingMemory,
)

__all__ = ["ForwardingStore"]


class ForwardingStore:
    """Every ``Store`` call passed to ``inner`` as it came."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    @property
    def backend(self) -> Backend:
        return self.inner.backend

    async def close(self) -> None:
        await self.inner.close()

    # -- Conversations -------------------------------------------------------
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
            thread_id, tenant_id=tenant_id, resource_id=resource_id, title=title, metadata=metadata
        )

    async def get_thread(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> Thread | None:
        return await self.inner.get_thread(thread_id, tenant_id=tenant_id, resource_id=resource_id)

    async def list_threads(
        self, *, tenant_id: str, resource_id: str, limit: int | None = None
    ) -> list[Thread]:
        return await self.inner.list_threads(
            tenant_id=tenant_id, resource_id=resource_id, limit=limit
        )

    async def delete_thread(self, thread_id: str, *, tenant_id: str, resource_id: str) -> bool:
        return await self.inner.delete_thread(
            thread_id, tenant_id=tenant_id, resource_id=resource_id
        )

    async def set_thread_title(
        self, thread_id: str, title: str, *, tenant_id: str, resource_id: str
    ) -> bool:
        return await self.inner.set_thread_title(
            thread_id, title, tenant_id=tenant_id, resource_id=resource_id
        )

    async def save_messages(
        self, thread_id: str, messages: Sequence[Message], /, *, tenant_id: str, resource_id: str
    ) -> None:
        return await self.inner.save_messages(
            thread_id, messages, tenant_id=tenant_id, resource_id=resource_id
        )

    async def get_messages(
        self,
        thread_id: str,
        *,
        tenant_id: str,
        resource_id: str,
        limit: int | None = None,
        before: int | None = None,
        after: MessageCursor | None = None,
    ) -> list[Message]:
        return await self.inner.get_messages(
            thread_id,
            tenant_id=tenant_id,
            resource_id=resource_id,
            limit=limit,
            before=before,
            after=after,
        )

    async def get_messages_by_ids(
        self, thread_id: str, message_ids: Sequence[str], *, tenant_id: str, resource_id: str
    ) -> list[Message]:
        return await self.inner.get_messages_by_ids(
            thread_id, message_ids, tenant_id=tenant_id, resource_id=resource_id
        )

    async def count_messages(self, thread_id: str, *, tenant_id: str, resource_id: str) -> int:
        return await self.inner.count_messages(
            thread_id, tenant_id=tenant_id, resource_id=resource_id
        )

    # -- WorkingMemoryTier ---------------------------------------------------
    async def get_working_memory(
        self, *, tenant_id: str, resource_id: str, scope: MemoryScope, thread_id: str | None = None
    ) -> WorkingMemory | None:
        return await self.inner.get_working_memory(
            tenant_id=tenant_id, resource_id=resource_id, scope=scope, thread_id=thread_id
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
            content, tenant_id=tenant_id, resource_id=resource_id, scope=scope, thread_id=thread_id
        )

    # -- ObservationTier -----------------------------------------------------
    async def append_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        /,
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        return await self.inner.append_observations(
            thread_id, observations, tenant_id=tenant_id, resource_id=resource_id
        )

    async def list_observations(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> list[Observation]:
        return await self.inner.list_observations(
            thread_id, tenant_id=tenant_id, resource_id=resource_id
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
        return await self.inner.replace_observations(
            thread_id, observations, tenant_id=tenant_id, resource_id=resource_id
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
            thread_id, observations, replaces=replaces, tenant_id=tenant_id, resource_id=resource_id
        )

    async def get_observation_cursor(
        self, thread_id: str, *, tenant_id: str, resource_id: str
    ) -> ObservationCursor | None:
        return await self.inner.get_observation_cursor(
            thread_id, tenant_id=tenant_id, resource_id=resource_id
        )

    async def set_observation_cursor(
        self, thread_id: str, cursor: MessageCursor, *, tenant_id: str, resource_id: str
    ) -> ObservationCursor:
        return await self.inner.set_observation_cursor(
            thread_id, cursor, tenant_id=tenant_id, resource_id=resource_id
        )

    async def advance_observations(
        self,
        thread_id: str,
        observations: Sequence[Observation],
        /,
        *,
        cursor: MessageCursor,
        expected: MessageCursor | None,
        tenant_id: str,
        resource_id: str,
    ) -> bool:
        return await self.inner.advance_observations(
            thread_id,
            observations,
            cursor=cursor,
            expected=expected,
            tenant_id=tenant_id,
            resource_id=resource_id,
        )

    # -- PlanTier ------------------------------------------------------------
    async def get_plan(self, thread_id: str, *, tenant_id: str, resource_id: str) -> Plan | None:
        return await self.inner.get_plan(thread_id, tenant_id=tenant_id, resource_id=resource_id)

    async def save_plan(
        self, thread_id: str, data: dict[str, Any], *, tenant_id: str, resource_id: str
    ) -> Plan:
        return await self.inner.save_plan(
            thread_id, data, tenant_id=tenant_id, resource_id=resource_id
        )

    # -- MemoryTiers ---------------------------------------------------------
    # -- VectorStore ---------------------------------------------------------
    @property
    def vector_search(self) -> VectorSearch:
        return self.inner.vector_search

    async def save_embeddings(
        self,
        thread_id: str,
        entries: Sequence[EmbeddingEntry],
        /,
        *,
        tenant_id: str,
        resource_id: str,
    ) -> None:
        return await self.inner.save_embeddings(
            thread_id, entries, tenant_id=tenant_id, resource_id=resource_id
        )

    async def query_embeddings(
        self,
        vector: Sequence[float],
        *,
        tenant_id: str,
        resource_id: str,
        thread_id: str | None = None,
        scope: MemoryScope = "thread",
        top_k: int = 5,
    ) -> list[EmbeddingHit]:
        return await self.inner.query_embeddings(
            vector,
            tenant_id=tenant_id,
            resource_id=resource_id,
            thread_id=thread_id,
            scope=scope,
            top_k=top_k,
        )

    # -- RunQueue ------------------------------------------------------------
    async def queue_run(
        self, run_id: str, work: QueuedWork, *, epoch: int, request_id: str | None = None
    ) -> RunRecord:
        return await self.inner.queue_run(run_id, work, epoch=epoch, request_id=request_id)

    async def claim_queued_runs(
        self, owner: str, *, limit: int, lease_until: int
    ) -> list[RunRecord]:
        return await self.inner.claim_queued_runs(owner, limit=limit, lease_until=lease_until)

    # -- RunLedger -----------------------------------------------------------
    async def open_run(
        self,
        run_id: str,
        *,
        thread_id: str,
        tenant_id: str,
        owner: str,
        status: RunStatus = "running",
        lease_until: int | None = None,
        agent_id: str | None = None,
        quota: RunQuota | None = None,
    ) -> RunRecord:
        return await self.inner.open_run(
            run_id,
            thread_id=thread_id,
            tenant_id=tenant_id,
            owner=owner,
            status=status,
            lease_until=lease_until,
            agent_id=agent_id,
            quota=quota,
        )

    async def get_run(self, run_id: str) -> RunRecord | None:
        return await self.inner.get_run(run_id)

    async def get_active_run(self, thread_id: str) -> RunRecord | None:
        return await self.inner.get_active_run(thread_id)

    async def list_open_runs(self, *, tenant_id: str | None = None) -> list[RunRecord]:
        return await self.inner.list_open_runs(tenant_id=tenant_id)

    async def update_run_status(self, run_id: str, status: RunStatus, *, epoch: int) -> RunRecord:
        return await self.inner.update_run_status(run_id, status, epoch=epoch)

    async def close_run(
        self, run_id: str, status: RunStatus, *, epoch: int, reason: str | None = None
    ) -> RunRecord:
        return await self.inner.close_run(run_id, status, epoch=epoch, reason=reason)

    async def take_over(
        self,
        run_id: str,
        new_owner: str,
        *,
        lease_until: int | None = None,
        epoch: int | None = None,
    ) -> RunRecord:
        return await self.inner.take_over(run_id, new_owner, lease_until=lease_until, epoch=epoch)

    async def renew_leases(self, owner: str, until: int) -> list[str]:
        return await self.inner.renew_leases(owner, until)

    async def list_expired_runs(self, now: int) -> list[RunRecord]:
        return await self.inner.list_expired_runs(now)

    async def take_over_expired(
        self, run_id: str, new_owner: str, *, now: int, lease_until: int
    ) -> RunRecord | None:
        return await self.inner.take_over_expired(
            run_id, new_owner, now=now, lease_until=lease_until
        )

    async def request_cancel(self, run_id: str, *, at: int) -> RunRecord | None:
        return await self.inner.request_cancel(run_id, at=at)

    async def list_cancel_requested(self, owner: str) -> list[RunRecord]:
        return await self.inner.list_cancel_requested(owner)

    async def release_lease(self, run_id: str, *, epoch: int, now: int) -> bool:
        return await self.inner.release_lease(run_id, epoch=epoch, now=now)

    # -- Confirmations -------------------------------------------------------
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
            payload=payload,
        )

    async def get_confirmation(self, request_id: str) -> Confirmation | None:
        return await self.inner.get_confirmation(request_id)

    async def answer_confirmation(self, request_id: str, answer: dict[str, Any]) -> bool:
        return await self.inner.answer_confirmation(request_id, answer)

    async def list_pending_confirmations(self, thread_id: str) -> list[Confirmation]:
        return await self.inner.list_pending_confirmations(thread_id)

    # -- EventLogStore -------------------------------------------------------
    async def append_events(
        self,
        thread_id: str,
        events: Sequence[StoredEvent],
        /,
        *,
        settled: Sequence[SettledCalls] = (),
    ) -> None:
        return await self.inner.append_events(thread_id, events, settled=settled)

    async def read_events(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        return await self.inner.read_events(thread_id, after_id=after_id, limit=limit)

    async def read_event_json(
        self, thread_id: str, *, after_id: int = 0, limit: int | None = None
    ) -> list[tuple[int, str]]:
        return await self.inner.read_event_json(thread_id, after_id=after_id, limit=limit)

    async def last_event_id(self, thread_id: str) -> int:
        return await self.inner.last_event_id(thread_id)

    # -- RunSnapshots --------------------------------------------------------
    async def save_run_snapshots(self, thread_id: str, snapshots: Sequence[RunSnapshot], /) -> None:
        return await self.inner.save_run_snapshots(thread_id, snapshots)

    async def read_run_snapshots(
        self, thread_id: str, *, before_event_id: int | None = None, limit: int | None = None
    ) -> list[RunSnapshot]:
        return await self.inner.read_run_snapshots(
            thread_id, before_event_id=before_event_id, limit=limit
        )

    async def last_snapshot_event_id(self, thread_id: str) -> int:
        return await self.inner.last_snapshot_event_id(thread_id)

    # -- Checkpoints ---------------------------------------------------------
    async def save_checkpoint(
        self, key: str, state: dict[str, Any], *, expires_at: int | None = None
    ) -> None:
        return await self.inner.save_checkpoint(key, state, expires_at=expires_at)

    async def record_progress(
        self,
        run_id: str,
        calls: Sequence[ToolCallEntry],
        /,
        *,
        epoch: int,
        state: dict[str, Any] | None = None,
    ) -> None:
        return await self.inner.record_progress(run_id, calls, epoch=epoch, state=state)

    async def load_progress(self, run_id: str) -> RunProgress:
        return await self.inner.load_progress(run_id)

    async def drop_progress(self, run_id: str) -> None:
        return await self.inner.drop_progress(run_id)

    async def load_checkpoint(self, key: str, *, now: int | None = None) -> dict[str, Any] | None:
        return await self.inner.load_checkpoint(key, now=now)

    async def delete_checkpoint(self, key: str) -> None:
        return await self.inner.delete_checkpoint(key)

    async def sweep_expired_checkpoints(self, now: int) -> int:
        return await self.inner.sweep_expired_checkpoints(now)

    # -- ApiKeys -------------------------------------------------------------
    async def create_api_key(self, key: ApiKey, /) -> None:
        return await self.inner.create_api_key(key)

    async def get_api_key(self, key_id: str) -> ApiKey | None:
        return await self.inner.get_api_key(key_id)

    async def list_api_keys(self, *, tenant_id: str | None = None) -> list[ApiKey]:
        return await self.inner.list_api_keys(tenant_id=tenant_id)

    async def revoke_api_key(self, key_id: str, *, at: int) -> ApiKey | None:
        return await self.inner.revoke_api_key(key_id, at=at)

    async def mark_api_key_used(self, key_id: str, *, at: int) -> None:
        return await self.inner.mark_api_key_used(key_id, at=at)

    # -- CatalogVersions -----------------------------------------------------
    async def save_agent_version(self, version: AgentVersion, /) -> bool:
        return await self.inner.save_agent_version(version)

    async def get_agent_version(self, version: str) -> AgentVersion | None:
        return await self.inner.get_agent_version(version)

    async def list_agent_versions(self, agent_id: str, tenant: str | None) -> list[AgentVersion]:
        return await self.inner.list_agent_versions(agent_id, tenant)

    async def activate_agent_version(
        self, agent_id: str, tenant: str | None, version: str
    ) -> int | None:
        return await self.inner.activate_agent_version(agent_id, tenant, version)

    async def deactivate_agent(self, agent_id: str, tenant: str | None) -> int | None:
        return await self.inner.deactivate_agent(agent_id, tenant)

    async def agent_activations(self) -> list[AgentActivation]:
        return await self.inner.agent_activations()

    async def catalog_revision(self) -> int:
        return await self.inner.catalog_revision()

    # -- RateCounters --------------------------------------------------------
    async def take_rate_slot(
        self, key: str, *, limit: int, window_seconds: int, now: int
    ) -> int | None:
        return await self.inner.take_rate_slot(
            key, limit=limit, window_seconds=window_seconds, now=now
        )

    async def return_rate_slot(self, key: str, *, taken_at: int) -> None:
        return await self.inner.return_rate_slot(key, taken_at=taken_at)

    async def sweep_rate_counters(self, before: int) -> int:
        return await self.inner.sweep_rate_counters(before)
