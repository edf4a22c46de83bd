"""runyard in one file, offline: a tool call, an approval and a streamed answer.

Run it with ``python examples/quickstart.py``. It uses the offline demo model, which calls the
tools named on ``/tool`` lines of your message and echoes everything else; swap in a real model
with ``model="openai:gpt-4o-mini"`` (and ``OPENAI_API_KEY``) to talk to a provider.
"""

from __future__ import annotations

import asyncio

from runyard import Agent, AgentEvent, AgentEventData, tool


@tool
def add(a: float, b: float) -> dict[str, float]:
    """Add two numbers.

    Args:
        a: the first number
        b: the second number
    """
    return {"sum": a + b}


@tool(requires_approval=True)
def send_email(to: str, subject: str) -> dict[str, str]:
    """Send an email (needs a person's approval first)."""
    return {"status": f"sent to {to}"}


def show_tool_start(event: AgentEventData) -> None:
    print(f"  [tool] {event.payload['toolName']}({event.payload['args']})")


async def main() -> None:
    agent = Agent(
        name="assistant",
        model="runyard:demo",
        instructions="You are a helpful assistant.",
        tools=[add, send_email],
    )
    agent.on(AgentEvent.TOOL_EXECUTION_START, show_tool_start)

    print("1. A tool call")
    result = await agent.generate('/tool add {"a": 2, "b": 40}')
    print(f"  answer: {result.text}")

    print("2. An approval")
    result = await agent.generate('/tool send_email {"to": "ann@example.com", "subject": "hi"}')
    (waiting,) = result.pending_suspend
    print(f"  waiting for approval: {waiting.tool_name} {waiting.args}")
    result = await agent.approve(
        "generate", run_id=result.run_id, tool_call_id=waiting.tool_call_id
    )
    print(f"  approved, answer: {result.text}")

    print("3. A streamed answer")
    stream = await agent.stream("Hello from the quick start")
    thinking = True
    async for chunk in stream:
        if chunk.type == "reasoning-delta":
            print(f"\033[2m{chunk.delta}\033[0m", end="", flush=True)
        elif chunk.type == "text-delta":
            if thinking:
                print()
                thinking = False
            print(chunk.delta, end="", flush=True)
        elif chunk.type == "finish":
            print(f"\n  finished: {chunk.finish_reason}, {chunk.usage.total_tokens} tokens")


if __name__ == "__main__":
    asyncio.run(main())
