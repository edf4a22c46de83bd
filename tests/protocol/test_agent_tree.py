"""The agent activity tree rebuilt from events, checked as whole serialised trees."""

from __future__ import annotations

from typing import Any

from runyard.protocol import (
    AgentNode,
    AgentTreeBuilder,
    WireEvent,
    build_agent_tree,
    build_agent_trees,
    parse_event,
)


def ev(type_: str, agent_id: str, run_id: str = "r1", **payload: Any) -> WireEvent:
    """One event written the way the wire spells it (camelCase payload keys)."""
    return parse_event({"type": type_, "runId": run_id, "agentId": agent_id, "payload": payload})


def call(tool_call_id: str, tool_name: str, args: dict[str, Any], **rest: Any) -> dict[str, Any]:
    """An expected tool call of the serialised tree, settled unless told otherwise."""
    return {
        "toolCallId": tool_call_id,
        "toolName": tool_name,
        "args": args,
        "isLoading": False,
        **rest,
    }


def node(agent_id: str, role: str, status: str, **rest: Any) -> dict[str, Any]:
    """An expected agent node with the always-present fields defaulted."""
    return {
        "agentId": agent_id,
        "role": role,
        "status": status,
        "textContent": "",
        "reasoning": "",
        "toolCalls": [],
        "children": [],
        "timeline": [],
        **rest,
    }


def dump(tree: AgentNode) -> dict[str, Any]:
    return tree.model_dump(mode="json")


PLAN = [
    {"id": "t1", "description": "Build weather workflow", "status": "in_progress"},
    {"id": "t2", "description": "Run and inspect it", "status": "pending"},
]
PLAN_DONE = [
    {"id": "t1", "description": "Build weather workflow", "status": "completed"},
    {"id": "t2", "description": "Run and inspect it", "status": "completed"},
]

# The seed's "Autonomous Loop (With Sub-Agents)" sequence, with the payload fields it elides.
AUTONOMOUS_LOOP = [
    ev("run-start", "a1", messageId="m1"),
    ev("tool-call", "a1", toolCallId="tc1", toolName="plan", args={"goal": "Weather to Slack"}),
    ev("tasks-update", "a1", tasks=PLAN),
    ev("tool-result", "a1", toolCallId="tc1", result={"goal": "Weather to Slack"}),
    ev("tool-call", "a1", toolCallId="tc2", toolName="delegate", args={"role": "workflow builder"}),
    ev("agent-spawned", "a2", parentId="a1", role="workflow builder", tools=["create-workflow"]),
    ev("tool-call", "a2", toolCallId="tc2.1", toolName="create-workflow", args={"name": "W"}),
    ev("tool-result", "a2", toolCallId="tc2.1", result={"id": "wf-123"}),
    ev("agent-completed", "a2", role="workflow builder", result="Created wf-123"),
    ev("tool-result", "a1", toolCallId="tc2", result="Created wf-123"),
    ev("tool-call", "a1", toolCallId="tc3", toolName="run-workflow", args={"id": "wf-123"}),
    ev("tool-result", "a1", toolCallId="tc3", result={"executionId": "exec-456"}),
    ev("tool-call", "a1", toolCallId="tc4", toolName="get-execution", args={"id": "exec-456"}),
    ev("tool-result", "a1", toolCallId="tc4", result={"status": "error"}),
    ev("tool-call", "a1", toolCallId="tc5", toolName="delegate", args={"role": "debugger"}),
    ev("agent-spawned", "a3", parentId="a1", role="execution debugger", tools=["get-execution"]),
    ev("tool-call", "a3", toolCallId="tc5.1", toolName="get-execution", args={"id": "exec-456"}),
    ev("tool-result", "a3", toolCallId="tc5.1", result={"httpStatus": 401}),
    ev("reasoning-delta", "a3", text="The HTTP node "),
    ev("reasoning-delta", "a3", text="returned 401..."),
    ev("agent-completed", "a3", role="execution debugger", result="Missing API key header"),
    ev("tool-result", "a1", toolCallId="tc5", result="Missing API key"),
    ev("tool-call", "a1", toolCallId="tc6", toolName="plan", args={"action": "update"}),
    ev("tasks-update", "a1", tasks=PLAN_DONE),
    ev("tool-result", "a1", toolCallId="tc6", result={"goal": "Weather to Slack"}),
    ev("text-delta", "a1", text="Done! "),
    ev("text-delta", "a1", text="I created a workflow..."),
    ev("run-finish", "a1", status="completed"),
]


def test_the_seed_s_autonomous_loop_rebuilds_into_the_whole_tree() -> None:
    builder = node(
        "a2",
        "workflow builder",
        "completed",
        toolCalls=[call("tc2.1", "create-workflow", {"name": "W"}, result={"id": "wf-123"})],
        timeline=[{"type": "tool-call", "toolCallId": "tc2.1"}],
        tools=["create-workflow"],
        result="Created wf-123",
    )
    debugger = node(
        "a3",
        "execution debugger",
        "completed",
        reasoning="The HTTP node returned 401...",
        toolCalls=[call("tc5.1", "get-execution", {"id": "exec-456"}, result={"httpStatus": 401})],
        timeline=[
            {"type": "tool-call", "toolCallId": "tc5.1"},
            {"type": "reasoning", "content": "The HTTP node returned 401..."},
        ],
        tools=["get-execution"],
        result="Missing API key header",
    )
    expected = node(
        "a1",
        "orchestrator",
        "completed",
        textContent="Done! I created a workflow...",
        toolCalls=[
            call("tc1", "plan", {"goal": "Weather to Slack"}, result={"goal": "Weather to Slack"}),
            call("tc2", "delegate", {"role": "workflow builder"}, result="Created wf-123"),
            call("tc3", "run-workflow", {"id": "wf-123"}, result={"executionId": "exec-456"}),
            call("tc4", "get-execution", {"id": "exec-456"}, result={"status": "error"}),
            call("tc5", "delegate", {"role": "debugger"}, result="Missing API key"),
            call("tc6", "plan", {"action": "update"}, result={"goal": "Weather to Slack"}),
        ],
        children=[builder, debugger],
        timeline=[
            {"type": "tool-call", "toolCallId": "tc1"},
            {"type": "tool-call", "toolCallId": "tc2"},
            {"type": "child", "agentId": "a2"},
            {"type": "tool-call", "toolCallId": "tc3"},
            {"type": "tool-call", "toolCallId": "tc4"},
            {"type": "tool-call", "toolCallId": "tc5"},
            {"type": "child", "agentId": "a3"},
            {"type": "tool-call", "toolCallId": "tc6"},
            {"type": "text", "content": "Done! I created a workflow..."},
        ],
        tasks=PLAN_DONE,
    )

    assert dump(build_agent_tree(AUTONOMOUS_LOOP)) == expected


def test_a_tree_midway_shows_running_agents_and_loading_calls() -> None:
    midway = build_agent_tree(AUTONOMOUS_LOOP[:7])

    assert midway.status == "active"
    assert [c.is_loading for c in midway.tool_calls] == [False, True]
    (child,) = midway.children
    assert (child.status, [c.is_loading for c in child.tool_calls]) == ("active", [True])
    assert midway.tasks is not None
    assert [t.status for t in midway.tasks] == ["in_progress", "pending"]


def test_a_confirmation_request_attaches_to_its_tool_call_until_answered() -> None:
    asked = [
        ev("run-start", "a1", messageId="m1"),
        ev("tool-call", "a1", toolCallId="tc1", toolName="save_note", args={"text": "hi"}),
        ev(
            "confirmation-request",
            "a1",
            requestId="cr1",
            toolCallId="tc1",
            toolName="save_note",
            args={"text": "hi"},
            severity="warning",
            message="Save this note?",
        ),
    ]
    approved = [*asked, ev("tool-result", "a1", toolCallId="tc1", result={"id": "n1"})]
    confirmation = {"requestId": "cr1", "severity": "warning", "message": "Save this note?"}

    assert dump(build_agent_tree(asked))["toolCalls"] == [
        call("tc1", "save_note", {"text": "hi"}, isLoading=True, confirmation=confirmation)
    ]
    assert dump(build_agent_tree(approved))["toolCalls"] == [
        call("tc1", "save_note", {"text": "hi"}, result={"id": "n1"}, confirmation=confirmation)
    ]


def test_a_tool_error_settles_the_call_with_its_message() -> None:
    events = [
        ev("run-start", "a1", messageId="m1"),
        ev("tool-call", "a1", toolCallId="tc1", toolName="calculator", args={"expression": "1/0"}),
        ev("tool-error", "a1", toolCallId="tc1", error="division by zero"),
        ev("text-delta", "a1", text="That cannot be computed."),
        ev("run-finish", "a1", status="completed"),
    ]

    assert dump(build_agent_tree(events)) == node(
        "a1",
        "orchestrator",
        "completed",
        textContent="That cannot be computed.",
        toolCalls=[
            call("tc1", "calculator", {"expression": "1/0"}, error="division by zero"),
        ],
        timeline=[
            {"type": "tool-call", "toolCallId": "tc1"},
            {"type": "text", "content": "That cannot be computed."},
        ],
    )


def test_a_cancelled_run_closes_every_agent_and_call_it_left_open() -> None:
    events = [
        ev("run-start", "a1", messageId="m1"),
        ev("text-delta", "a1", text="Working"),
        ev("tool-call", "a1", toolCallId="tc1", toolName="delegate", args={}),
        ev("agent-spawned", "a2", parentId="a1", role="researcher", tools=["search"]),
        ev("tool-call", "a2", toolCallId="tc2", toolName="search", args={"q": "x"}),
        ev("run-finish", "a1", status="cancelled", reason="user_cancelled"),
    ]

    assert dump(build_agent_tree(events)) == node(
        "a1",
        "orchestrator",
        "cancelled",
        textContent="Working",
        toolCalls=[call("tc1", "delegate", {})],
        children=[
            node(
                "a2",
                "researcher",
                "cancelled",
                toolCalls=[call("tc2", "search", {"q": "x"})],
                timeline=[{"type": "tool-call", "toolCallId": "tc2"}],
                tools=["search"],
            )
        ],
        timeline=[
            {"type": "text", "content": "Working"},
            {"type": "tool-call", "toolCallId": "tc1"},
            {"type": "child", "agentId": "a2"},
        ],
        cancellationReason="user_cancelled",
    )


def test_a_failed_run_keeps_its_reason_and_the_error_details() -> None:
    events = [
        ev("run-start", "a1", messageId="m1"),
        ev("error", "a1", content="rate limited", statusCode=429, provider="OpenAI"),
        ev("run-finish", "a1", status="error", reason="LLM provider unavailable"),
    ]

    assert dump(build_agent_tree(events)) == node(
        "a1",
        "orchestrator",
        "error",
        error="LLM provider unavailable",
        errorDetails={"content": "rate limited", "statusCode": 429, "provider": "OpenAI"},
    )


def test_a_failed_sub_agent_is_marked_error_and_a_cancelled_one_cancelled() -> None:
    events = [
        ev("run-start", "a1", messageId="m1"),
        ev("agent-spawned", "a2", parentId="a1", role="builder"),
        ev("agent-spawned", "a3", parentId="a1", role="tester"),
        ev("agent-completed", "a2", role="builder", result="", error="boom"),
        ev("agent-completed", "a3", role="tester", result="", status="cancelled"),
    ]

    tree = build_agent_tree(events)

    assert [(c.agent_id, c.status, c.error) for c in tree.children] == [
        ("a2", "error", "boom"),
        ("a3", "cancelled", None),
    ]


def test_text_split_by_a_tool_call_makes_two_timeline_entries() -> None:
    events = [
        ev("run-start", "a1", messageId="m1"),
        ev("reasoning-delta", "a1", text="Think"),
        ev("text-delta", "a1", text="Let me "),
        ev("text-delta", "a1", text="look."),
        ev("tool-call", "a1", toolCallId="tc1", toolName="list_notes", args={}),
        ev("tool-result", "a1", toolCallId="tc1", result={"notes": []}),
        ev("text-delta", "a1", text="None."),
    ]

    tree = build_agent_tree(events)

    assert tree.text_content == "Let me look.None."
    assert [entry.model_dump() for entry in tree.timeline] == [
        {"type": "reasoning", "content": "Think"},
        {"type": "text", "content": "Let me look."},
        {"type": "tool-call", "toolCallId": "tc1"},
        {"type": "text", "content": "None."},
    ]


def test_status_lines_show_until_cleared_by_an_empty_message() -> None:
    builder = AgentTreeBuilder()
    builder.apply(ev("run-start", "a1", messageId="m1"))
    builder.apply(ev("status", "a1", message="Recalling conversation..."))
    shown = builder.tree().status_message
    builder.apply(ev("status", "a1", message=""))

    assert (shown, builder.tree().status_message) == ("Recalling conversation...", None)


def test_events_of_unknown_agents_and_non_agent_events_are_ignored() -> None:
    events = [
        ev("run-start", "a1", messageId="m1"),
        ev("text-delta", "stranger", text="ignored"),
        ev("agent-spawned", "a9", parentId="stranger", role="orphan"),
        ev("tool-result", "a1", toolCallId="never-called", result=1),
        ev("thread-title-updated", "a1", title="A title"),
        ev("filesystem-request", "a1", requestId="f1", operation="read", args={}),
    ]

    assert dump(build_agent_tree(events)) == node("a1", "orchestrator", "active")


def test_no_events_give_an_empty_active_orchestrator() -> None:
    assert dump(build_agent_tree([])) == node("", "orchestrator", "active")


def test_a_log_without_its_run_start_rebuilds_from_a_seeded_root() -> None:
    tail = [ev("text-delta", "a1", text="late"), ev("run-finish", "a1", status="completed")]

    tree = build_agent_tree(tail, root_agent_id="a1")

    assert (tree.agent_id, tree.text_content, tree.status) == ("a1", "late", "completed")


def test_several_runs_give_one_tree_each_in_order() -> None:
    first = list(AUTONOMOUS_LOOP)
    second = [
        ev("run-start", "b1", run_id="r2", messageId="m2"),
        ev("text-delta", "b1", run_id="r2", text="Second answer"),
        ev("run-finish", "b1", run_id="r2", status="cancelled", reason="user_cancelled"),
    ]
    # A detached sub-agent of the first run may still report after the second run started.
    late = ev("agent-completed", "a2", role="workflow builder", result="late news")

    trees = build_agent_trees([*first[:-1], *second, first[-1], late])

    assert list(trees) == ["r1", "r2"]
    assert dump(trees["r2"]) == node(
        "b1",
        "orchestrator",
        "cancelled",
        textContent="Second answer",
        timeline=[{"type": "text", "content": "Second answer"}],
        cancellationReason="user_cancelled",
    )
    assert trees["r1"].status == "completed"
    assert trees["r1"].children[0].result == "late news"


def test_a_follow_up_run_merges_into_the_same_tree() -> None:
    events = [
        ev("run-start", "a1", messageId="m1"),
        ev("text-delta", "a1", text="Started. "),
        ev("run-finish", "a1", status="completed"),
        ev("run-start", "a1-follow-up", run_id="r2", messageId="m2"),
        ev("text-delta", "a1-follow-up", run_id="r2", text="Finished."),
    ]

    tree = build_agent_tree(events)

    assert (tree.agent_id, tree.status, tree.text_content) == ("a1", "active", "Started. Finished.")


def test_run_resumed_drops_the_stopped_servers_partial_output_of_that_run() -> None:
    logged = [
        (1, ev("run-start", "a1", messageId="m1")),
        (2, ev("text-delta", "a1", text="Let me look.")),
        (3, ev("tool-call", "a1", toolCallId="tc1", toolName="lookup", args={})),
        (4, ev("tool-result", "a1", toolCallId="tc1", result="first try")),
        (5, ev("text-delta", "a1", text="It says fir")),
        (6, ev("text-delta", "a1", run_id="r0", text="another run's")),
        (7, ev("run-resumed", "a1", afterEventId=3)),
        (8, ev("tool-result", "a1", toolCallId="tc1", result="replayed")),
        (9, ev("text-delta", "a1", text="It says replayed.")),
    ]
    builder = AgentTreeBuilder()
    for event_id, event in logged:
        builder.apply(event, event_id)

    tree = builder.tree()
    assert tree.text_content == "Let me look.another run'sIt says replayed."
    (tool_call,) = tree.tool_calls
    assert tool_call.result == "replayed"
    assert tree.status == "active"


def test_events_applied_without_ids_survive_a_run_resumed() -> None:
    builder = AgentTreeBuilder()
    builder.apply(ev("run-start", "a1", messageId="m1"))
    builder.apply(ev("text-delta", "a1", text="kept"))
    builder.apply(ev("run-resumed", "a1", afterEventId=0))

    assert builder.tree().text_content == "kept"
