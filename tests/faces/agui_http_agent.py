"""What AG-UI's own ``HttpAgent`` (``node/agui_client.mjs``) must see of any agent served as
``assistant``: a calculator tool call and its result, an approval interrupt answered with
``resume``, and an aborted run that the thread's ``/v1`` log shows cancelled."""

from __future__ import annotations

from ag_ui.core import Event
from faces_server import node_script, thread_events
from pydantic import TypeAdapter

EVENT = TypeAdapter(Event)


def check_http_agent_session(base: str, thread_id: str) -> None:
    seen = node_script("agui_client.mjs", base, thread_id)

    tool = seen["tool"]
    assert tool["error"] is None
    assert tool["outcome"]["outcome"] == "success"
    assert [m["role"] for m in tool["newMessages"]] == ["assistant", "tool", "assistant"]
    assert tool["newMessages"][0]["toolCalls"][0]["function"]["name"] == "calculator"
    assert tool["newMessages"][1]["content"] == '{"result": 14}'
    asked = seen["asked"]
    assert asked["outcome"]["outcome"] == "interrupt"
    assert asked["outcome"]["interrupts"][0]["reason"] == "tool_approval"
    assert [i["id"] for i in asked["pending"]] == [i["id"] for i in asked["outcome"]["interrupts"]]
    resumed = seen["resumed"]
    assert resumed["outcome"]["outcome"] == "success"
    assert "from ag-ui" in resumed["newMessages"][0]["content"]
    for run in seen.values():
        for event in run["events"]:
            EVENT.validate_python(event)
    aborted = seen["aborted"]["events"]
    run_id = aborted[0]["metadata"]["runyardRunId"]
    assert thread_events(base, thread_id, run_id)[-1]["payload"]["status"] == "cancelled"
