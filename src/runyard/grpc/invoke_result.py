"""``InvokeResult``: a run's ``StreamEvent``s folded into one ``InvokeResponse``."""

from __future__ import annotations

from runyard.grpc.content_blocks import message_content
from runyard.grpc.v1 import inference_pb2 as pb
from runyard.messages import AgentMessage
from runyard.service import ORCHESTRATOR_ID, Owner
from runyard.storage import Store

__all__ = ["InvokeResult"]

_STATUS = {
    pb.COMPLETED: "completed",
    pb.SUSPENDED: "suspended",
    pb.CANCELLED: "cancelled",
    pb.FAILED: "error",
}


class InvokeResult:
    """What ``Invoke`` answers, gathered from the events of the run as ``Stream`` sends them."""

    def __init__(self, run_id: str, thread_id: str) -> None:
        self.response = pb.InvokeResponse(run_id=run_id, thread_id=thread_id, status="running")
        self._message_id = ""
        self._text: list[tuple[int, str]] = []
        """(event id, text) of the answer so far."""

    @property
    def text(self) -> str:
        """The orchestrator's answer so far, what a takeover said again counted once."""
        return "".join(text for _, text in self._text)

    def add(self, event: pb.StreamEvent) -> None:
        """Fold one event in."""
        reply = self.response
        reply.last_event_id = event.meta.event_id
        kind = event.WhichOneof("event")
        if kind == "token" and event.agent_id == ORCHESTRATOR_ID:
            self._text.append((event.meta.event_id, event.token.text))
        elif kind == "run_resumed":  # what the dead server said after that is said again
            after = event.run_resumed.after_event_id
            self._text = [(said, text) for said, text in self._text if said <= after]
        elif kind == "confirmation_request":
            reply.pending_confirmations.append(event.confirmation_request.confirmation)
        elif kind == "content" and not event.content.message_id:  # the structured output
            for block in event.content.blocks:
                if block.WhichOneof("block") == "json":
                    reply.output.update(dict(block.json.struct_value))
        elif kind == "status":
            self._status(event.status)

    def _status(self, status: pb.StatusEvent) -> None:
        reply = self.response
        if status.state == pb.RUNNING:
            self._message_id = status.message_id
            return
        reply.status = _STATUS[status.state]
        if status.HasField("usage"):
            reply.usage.CopyFrom(status.usage)
        if status.state in (pb.FAILED, pb.CANCELLED):
            code = "run_failed" if status.state == pb.FAILED else "run_cancelled"
            reply.error.CopyFrom(pb.Error(code=code, message=status.reason))

    async def response_with_messages(
        self, store: Store, owner: Owner, thread_key: str
    ) -> pb.InvokeResponse:
        """The response, with the thread's messages from the run's user message on."""
        reply = self.response
        reply.text = self.text
        messages = await store.get_messages(
            thread_key, tenant_id=owner.tenant_id, resource_id=owner.user_id
        )
        ids = [m.id for m in messages]
        start = ids.index(self._message_id) if self._message_id in ids else len(ids)
        reply.messages.extend(
            pb.Message(id=m.id, role=m.role, text=m.text, content=message_content(m))
            for m in messages[start:]
            if isinstance(m, AgentMessage)
        )
        return reply
