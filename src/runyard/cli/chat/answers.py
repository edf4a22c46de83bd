"""Asking the user a ``confirmation-request`` at the terminal and building the answer body.

The body is what ``POST /v1/confirm/{requestId}`` takes: ``{"approved": bool}`` plus
``userInput`` (``inputType`` text), ``answers`` (questions) or ``resourceDecision``.
Prompts are plain blocking reads: nothing else runs while the user decides.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.prompt import Confirm, Prompt
from rich.text import Text

from runyard.cli.chat.tree_view import short_json
from runyard.protocol import ConfirmationRequestPayload, Question

__all__ = ["ConfirmationAsker"]

_SEVERITY_STYLE = {"info": "cyan", "warning": "yellow", "destructive": "red"}


class ConfirmationAsker:
    """Shows the request, asks what its ``inputType`` calls for, returns the answer body."""

    def __init__(self, console: Console) -> None:
        self._console = console

    def ask(self, request: ConfirmationRequestPayload) -> dict[str, Any]:
        """The answer body; end of input counts as a refusal."""
        self._show(request)
        try:
            return self._answer(request)
        except EOFError:
            self._console.print(Text("No answer (end of input): denied.", style="yellow"))
            return {"approved": False}

    def _show(self, request: ConfirmationRequestPayload) -> None:
        lines: list[Text] = []
        if request.intro_message:
            lines.append(Text(request.intro_message))
        lines.append(Text(request.message, style="bold"))
        lines.append(
            Text.assemble(("🔧 ", ""), (request.tool_name, "cyan"), " ", short_json(request.args))
        )
        lines.extend(Text(f"  ○ {task.description}") for task in request.tasks or [])
        if request.domain_access is not None:
            lines.append(Text(f"wants to reach {request.domain_access.host}"))
        style = _SEVERITY_STYLE[request.severity]
        self._console.print(
            Panel(Group(*lines), title=f"confirm ({request.severity})", border_style=style)
        )

    def _answer(self, request: ConfirmationRequestPayload) -> dict[str, Any]:
        if request.input_type == "text":
            text = Prompt.ask("Your answer (empty to deny)", console=self._console, default="")
            return {"approved": True, "userInput": text} if text else {"approved": False}
        if request.input_type == "questions" and request.questions:
            return {"approved": True, "answers": [self._question(q) for q in request.questions]}
        if request.input_type == "resource-decision" and request.resource_decision is not None:
            options: list[str] = list(request.resource_decision.options)
            choice = Prompt.ask(
                "Decision", console=self._console, choices=options, default=options[0]
            )
            return {"approved": choice != "denyOnce", "resourceDecision": choice}
        return {"approved": Confirm.ask("Approve?", console=self._console)}

    def _question(self, question: Question) -> dict[str, Any]:
        self._console.print(Text(question.question, style="bold"))
        options = question.options or []
        for number, option in enumerate(options, 1):
            self._console.print(f"  {number}. {option}")
        if not options or question.type == "text":
            text = Prompt.ask("Answer (empty to skip)", console=self._console, default="")
            return _answer(question, [], text)
        hint = "numbers, comma-separated" if question.type == "multi" else "a number"
        reply = Prompt.ask(f"Choose ({hint}; or type an answer)", console=self._console, default="")
        picked = _picked(reply, options, many=question.type == "multi")
        return _answer(question, picked, "" if picked else reply)


def _picked(reply: str, options: list[str], *, many: bool) -> list[str]:
    """The options a reply of option numbers names; empty when it is free text instead."""
    parts = [part.strip() for part in reply.split(",")] if many else [reply.strip()]
    numbers = [int(part) for part in parts if part.isdigit() and 1 <= int(part) <= len(options)]
    return [options[n - 1] for n in numbers] if len(numbers) == len(parts) else []


def _answer(question: Question, selected: list[str], text: str) -> dict[str, Any]:
    answer: dict[str, Any] = {"questionId": question.id, "selectedOptions": selected}
    if text:
        answer["customText"] = text
    if not selected and not text:
        answer["skipped"] = True
    return answer
