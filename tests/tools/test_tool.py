from __future__ import annotations

import threading
from typing import Annotated

import pytest
from pydantic import BaseModel, Field

from runyard.errors import ConfigurationError
from runyard.tools import Suspend, Tool, ToolContext, ToolDenied, invoke_tool, tool


def _ctx(**kwargs: object) -> ToolContext:
    return ToolContext(run_id="run_1", tool_call_id="call_1", tool_name="t", **kwargs)  # type: ignore[arg-type]


def test_description_and_argument_docs_come_from_the_docstring() -> None:
    @tool
    def search(query: str, limit: int = 10) -> list[str]:
        """Search the notes.

        Args:
            query: what to look for
            limit: how many results at most
        """
        return []

    assert search.name == "search"
    assert search.description == "Search the notes."
    props = search.parameters["properties"]
    assert props["query"] == {"description": "what to look for", "title": "Query", "type": "string"}
    assert props["limit"]["default"] == 10
    assert props["limit"]["description"] == "how many results at most"
    assert search.parameters["required"] == ["query"]


def test_the_tool_context_parameter_is_injected_not_shown_to_the_model() -> None:
    @tool
    async def whoami(ctx: ToolContext, greeting: str) -> str:
        """Say who is calling."""
        return f"{greeting} {ctx.idempotency_key}"

    assert list(whoami.parameters["properties"]) == ["greeting"]


async def test_the_context_carries_a_stable_idempotency_key() -> None:
    @tool
    async def whoami(ctx: ToolContext, greeting: str) -> str:
        """Say who is calling."""
        return f"{greeting} {ctx.idempotency_key}"

    assert await whoami.call({"greeting": "hi"}, _ctx()) == "hi run_1:call_1"


async def test_sync_functions_run_in_a_worker_thread() -> None:
    @tool
    def where() -> str:
        """Name the thread."""
        return threading.current_thread().name

    assert await where.call({}, _ctx()) != threading.current_thread().name


def test_arguments_are_validated_by_pydantic() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    assert add.validate_args({"a": "2", "b": 3}) == {"a": 2, "b": 3}
    with pytest.raises(ValueError, match=r"a: Input should be a valid integer"):
        add.validate_args({"a": "two", "b": 3})
    with pytest.raises(ValueError, match=r"c: Extra inputs are not permitted"):
        add.validate_args({"a": 1, "b": 2, "c": 3})


def test_annotated_limits_on_an_argument_are_kept_in_its_schema_and_checked() -> None:
    @tool
    def repeat(times: Annotated[int, Field(ge=0, le=3)] | None = None) -> int:
        """Repeat."""
        return times or 0

    assert repeat.parameters["properties"]["times"]["anyOf"][0] == {
        "type": "integer",
        "minimum": 0,
        "maximum": 3,
    }
    assert repeat.validate_args({"times": 3}) == {"times": 3}
    with pytest.raises(ValueError, match=r"times: Input should be greater than or equal to 0"):
        repeat.validate_args({"times": -1})


async def test_an_explicit_json_schema_validates_arguments() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    }

    @tool(parameters=schema, description="Weather for a city.")
    async def weather(**args: str) -> str:
        return f"sunny in {args['city']}"

    assert weather.parameters == schema
    assert await weather.call(weather.validate_args({"city": "Oslo"}), _ctx()) == "sunny in Oslo"
    with pytest.raises(ValueError, match="'city' is a required property"):
        weather.validate_args({})


def test_a_tool_needs_a_description() -> None:
    def nameless() -> None:
        pass

    with pytest.raises(ConfigurationError, match="needs a description"):
        tool(nameless)


def test_approval_and_suspend_schemas_do_not_combine() -> None:
    class Answer(BaseModel):
        value: int

    def ask() -> None:
        """Ask."""

    with pytest.raises(ConfigurationError, match="cannot be combined"):
        Tool.from_function(ask, requires_approval=True, resume_schema=Answer)


async def test_a_gated_tool_suspends_first_then_runs_once_approved() -> None:
    calls: list[str] = []

    @tool(requires_approval=True)
    def delete(item: str) -> str:
        """Delete an item."""
        calls.append(item)
        return "deleted"

    first = await invoke_tool(delete, {"item": "x"}, _ctx())
    assert first == Suspend({"type": "approval", "tool_name": "delete", "args": {"item": "x"}})
    assert calls == []
    assert (
        await invoke_tool(delete, {"item": "x"}, _ctx(resume_data={"approved": True})) == "deleted"
    )
    assert calls == ["x"]


async def test_a_denied_call_fails_with_denied_and_never_runs() -> None:
    @tool(requires_approval=True)
    def delete(item: str) -> str:
        """Delete an item."""
        raise AssertionError("must not run")

    with pytest.raises(ToolDenied, match='Tool "delete" was denied by the user: not now'):
        await invoke_tool(
            delete, {"item": "x"}, _ctx(resume_data={"approved": False, "reason": "not now"})
        )


async def test_needs_approval_decides_per_call() -> None:
    @tool(needs_approval=lambda args: args["amount"] > 100)
    def pay(amount: int) -> str:
        """Pay."""
        return f"paid {amount}"

    assert await invoke_tool(pay, {"amount": 5}, _ctx()) == "paid 5"
    assert isinstance(await invoke_tool(pay, {"amount": 500}, _ctx()), Suspend)
