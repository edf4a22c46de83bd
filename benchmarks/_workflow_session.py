"""A synthetic tool-heavy autonomous loop for the observational-memory benchmarks.

Each turn: a user asks to build and run a sync workflow; the agent calls ``run_workflow`` once
per step, each result a workflow definition with its execution (~1,600 tokens); then a short
answer. The observer is a deterministic script writing one line per user request and per tool
call, and the reflector keeps the requests and drops the tool detail, so the numbers show the
mechanism, not the quality of a real observer model.
"""

from __future__ import annotations

import json
import re

from pydantic_ai import messages as pai

from runyard.models import from_model_messages
from runyard.testing import Turn

__all__ = ["OBSERVER_PROMPT", "observe", "request_text", "workflow"]

OBSERVER_PROMPT = "Current time:"
"""How the observer's and the reflector's prompts begin (``memory/observational/prompts.py``)."""


def workflow(turn: int, step: int) -> dict[str, object]:
    """What ``run_workflow`` returns for step ``step`` of turn ``turn``: 12 nodes and their runs."""
    nodes = [
        {
            "id": f"node-{n}",
            "type": ["httpRequest", "set", "if", "slack", "code"][n % 5],
            "parameters": {
                "url": f"https://api.example.com/v1/items/{turn}/{step}/{n}",
                "jsCode": f"return items.map(item => ({{ ...item.json, step: {step}, n: {n} }}));",
                "options": {"timeout": 30_000, "retry": {"count": 3, "delayMs": 500}},
            },
            "position": [n * 220, 300],
        }
        for n in range(12)
    ]
    runs = [
        {"node": f"node-{n}", "status": "success", "items": 25, "ms": 40 + n} for n in range(12)
    ]
    return {
        "id": f"wf-{turn}-{step}",
        "name": f"Sync batch {turn}.{step}",
        "nodes": nodes,
        "runs": runs,
    }


def request_text(messages: list[pai.ModelMessage]) -> str:
    """The text of the last message of a request (the user's, or the observer's prompt)."""
    return from_model_messages(messages)[-1].text


def observe(messages: list[pai.ModelMessage]) -> Turn:
    """The scripted observer (or reflector, given the whole log) for one request."""
    prompt = request_text(messages)
    if "Observation log:" in prompt:  # the reflector: keep the requests, drop the tool detail
        kept = [line for line in prompt.splitlines() if line.startswith(("Date:", "* "))]
        return Turn(text="\n".join(kept))
    lines: list[str] = []
    for stamp, role, body in re.findall(r"^\[\S+ (\d\d:\d\d)\] (\w+): (.*)$", prompt, re.MULTILINE):
        if role == "user":
            lines.append(f"* CRITICAL ({stamp}) User asked: {body}")
        elif body.startswith("tool_call "):
            name, _, args = body.removeprefix("tool_call ").partition(" input=")
            lines.append(
                f"  * INFO ({stamp}) ran {name} {json.loads(args)['id']}: 12 nodes, all succeeded"
            )
    return Turn(text="\n".join(lines))
