"""The agent's middleware around a LangChain agent's model and tool calls, as in runyard's loop:
PII redaction holds for what the model reads, what streams and what is recorded; an approval
policy gates a tool call with an interrupt."""

from __future__ import annotations

from typing import Any

from pydantic_ai.models import Model

from runyard import PiiRedaction
from runyard.agent.graph_agent import GraphAgent
from runyard.runtime.graph import AgentGraph, RunyardChatModel
from runyard.runtime.middleware import ApprovalPolicy
from runyard.testing import call, scripted_model, text
from runyard.tools import Tool, tool
from streamed_pieces import pieces_model


def _langchain_agent(model: Model, tools: list[Tool], middleware: list[Any]) -> GraphAgent:
    graph = AgentGraph(RunyardChatModel(model=model))
    return GraphAgent("lc", model, graph, tools=tools, middleware=middleware)


async def test_an_email_split_across_deltas_never_streams_and_the_record_matches() -> None:
    model = pieces_model("Write to ali", "ce@exam", "ple.com", " or call +1 555 ", "123 4567.")
    agent = _langchain_agent(model, [], [PiiRedaction(hold_chars=24)])

    stream = await agent.stream("contact?")
    chunks = [chunk async for chunk in stream]
    streamed = "".join(c.delta for c in chunks if c.type == "text-delta")
    recorded = next(c.message for c in chunks if c.type == "message")

    assert streamed == "Write to [EMAIL] or call [PHONE]."
    assert recorded.text == streamed


async def test_the_model_reads_user_text_and_tool_results_redacted() -> None:
    @tool
    def lookup() -> dict[str, str]:
        """The customer's contact."""
        return {"email": "bob@example.org"}

    model = scripted_model([call("lookup"), text("ok")])
    result = await _langchain_agent(model, [lookup], [PiiRedaction()]).generate(
        "I am carol@example.net"
    )

    sent = repr(model.requests[1])
    assert "carol@example.net" not in sent
    assert "bob@example.org" not in sent
    assert sent.count("[EMAIL]") == 2
    assert result.messages[1].parts[0].result == {"email": "bob@example.org"}


async def test_an_approval_policy_interrupts_the_call_it_names() -> None:
    ran: list[str] = []

    @tool
    def delete(path: str) -> str:
        """Deletes a file."""
        ran.append(path)
        return "deleted"

    model = scripted_model([call("delete", {"path": "/tmp/x"}), text("Gone.")])
    agent = _langchain_agent(model, [delete], [ApprovalPolicy("del*")])
    suspended = await agent.generate("delete /tmp/x")

    (question,) = suspended.pending_suspend
    assert question.payload["type"] == "approval"
    assert ran == []

    result = await agent.approve(
        "generate", run_id=question.run_id, tool_call_id=question.tool_call_id
    )
    assert result.text == "Gone."
    assert ran == ["/tmp/x"]
