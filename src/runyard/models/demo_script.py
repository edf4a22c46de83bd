"""What the offline demo model says: a pure function from the request history to a list of steps.

It reads the latest user message (the last ``UserPromptPart``):
- ``/tool NAME {json args}`` lines: call those tools, in order, in one response; once their results
  are back (tool returns after that user message), say one sentence per result;
- a ``/delay MS`` line: wait MS milliseconds before each streamed delta;
- a ``/fail STATUS`` line (4xx or 5xx): fail the call as a provider answering that HTTP status;
- an ``/image`` line: answer with a small generated PNG after the text; a ``/file NAME`` line:
  with a small ``text/plain`` file of that name;
- anything else: a short reasoning part, then a reply quoting the message, word by word. Images
  and files sent with the message are named in the reply: kind, media type and size (or URL).
When an output tool is offered, the final answer calls it with an object built from its schema.
"""

from __future__ import annotations

import json
import re
import secrets
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_ai import messages as pai
from pydantic_ai.tools import ToolDefinition

__all__ = ["DemoStep", "DemoScript", "demo_png", "plan_reply", "sample_for_schema"]

_TOOL_LINE = re.compile(r"^\s*/tool\s+(?P<name>\S+)\s*(?P<args>.*)$")
_DELAY_LINE = re.compile(r"^\s*/delay\s+(?P<ms>\d+)\s*$")
_FAIL_LINE = re.compile(r"^\s*/fail\s+(?P<status>[45]\d\d)\s*$")
_IMAGE_LINE = re.compile(r"^\s*/image\s*$")
_FILE_LINE = re.compile(r"^\s*/file\s+(?P<name>\S+)\s*$")
_COMMANDS = (_DELAY_LINE, _IMAGE_LINE, _FILE_LINE)
_Attachment = pai.BinaryContent | pai.ImageUrl | pai.AudioUrl | pai.VideoUrl | pai.DocumentUrl


@dataclass(frozen=True, slots=True)
class DemoStep:
    """One streamed piece: reasoning or text (a word), or a whole tool call."""

    kind: Literal["reasoning", "text", "tool-call", "file"]
    text: str = ""
    tool_name: str = ""
    args: str = ""
    tool_call_id: str = ""
    file: pai.BinaryContent | None = None


@dataclass(slots=True)
class DemoScript:
    """The steps of one demo response and the delay before each, or the HTTP status it fails with."""

    steps: list[DemoStep] = field(default_factory=list)
    delay_ms: int = 0
    fail_status: int | None = None


def plan_reply(
    messages: Sequence[pai.ModelMessage], output_tools: Sequence[ToolDefinition]
) -> DemoScript:
    """The demo model's response to ``messages``."""
    prompt, after = _latest_prompt(messages)
    lines = _prompt_text(prompt).splitlines()
    script = DemoScript(delay_ms=_delay(lines), fail_status=_fail_status(lines))
    tool_lines = [m for line in lines if (m := _TOOL_LINE.match(line))]
    results = [p for m in after if isinstance(m, pai.ModelRequest) for p in m.parts]
    returns = [p for p in results if isinstance(p, pai.ToolReturnPart)]
    if tool_lines and not returns:
        script.steps = [_tool_step(n, m["name"], m["args"]) for n, m in enumerate(tool_lines, 1)]
        return script
    if returns:
        reply = " ".join(_summary(part) for part in returns)
    else:
        said = " ".join(
            line.strip()
            for line in lines
            if line.strip() and not any(c.match(line) for c in _COMMANDS)
        )
        script.steps = _words("reasoning", f"The user said: {said!r}, I will echo it.")
        reply = f'You said: "{said}"' + _attached(prompt)
    if output_tools:
        tool = output_tools[0]
        args = json.dumps(sample_for_schema(tool.parameters_json_schema, reply))
        script.steps.append(_tool_step(1, tool.name, args))
    else:
        script.steps.extend(_words("text", reply))
        script.steps.extend(_made_files(lines))
    return script


def sample_for_schema(schema: dict[str, Any], text: str) -> Any:
    """A value that satisfies simple JSON Schemas: required fields only, strings are ``text``."""
    return _sample(schema, schema.get("$defs", {}), text)


def _sample(schema: dict[str, Any], defs: dict[str, Any], text: str) -> Any:
    if "$ref" in schema:
        return _sample(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs, text)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for combinator in ("anyOf", "oneOf", "allOf"):
        if schema.get(combinator):
            return _sample(schema[combinator][0], defs, text)
    kind = schema.get("type", "object")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        properties = schema.get("properties", {})
        return {
            name: _sample(properties.get(name, {}), defs, text)
            for name in schema.get("required", [])
        }
    simple: dict[str, Any] = {"string": text, "integer": 0, "number": 0, "boolean": False}
    return [] if kind == "array" else simple.get(kind)


def _latest_prompt(
    messages: Sequence[pai.ModelMessage],
) -> tuple[pai.UserPromptPart | None, list[pai.ModelMessage]]:
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if not isinstance(message, pai.ModelRequest):
            continue
        prompts = [p for p in message.parts if isinstance(p, pai.UserPromptPart)]
        if prompts:
            return prompts[-1], list(messages[index + 1 :])
    return None, list(messages)


def _attached(prompt: pai.UserPromptPart | None) -> str:
    """What came with the text, named: `` and attached: an image (image/png, 68 bytes)``."""
    if prompt is None or isinstance(prompt.content, str):
        return ""
    named = [_name(item) for item in prompt.content if isinstance(item, _Attachment)]
    return f" and attached: {', '.join(named)}" if named else ""


def _name(item: _Attachment) -> str:
    if isinstance(item, pai.BinaryContent):
        kind = "an image" if item.is_image else "audio" if item.is_audio else "a file"
        return f"{kind} ({item.media_type}, {len(item.data)} bytes)"
    kinds = {pai.ImageUrl: "an image", pai.AudioUrl: "audio", pai.VideoUrl: "a video"}
    return f"{kinds.get(type(item), 'a file')} ({item.url})"


def _made_files(lines: list[str]) -> list[DemoStep]:
    files: list[DemoStep] = []
    for line in lines:
        if _IMAGE_LINE.match(line):
            image = pai.BinaryContent(demo_png(), media_type="image/png", identifier="demo.png")
            files.append(DemoStep("file", file=image))
        elif match := _FILE_LINE.match(line):
            text = f"A file the runyard demo model wrote, named {match['name']}.\n"
            document = pai.BinaryContent(
                text.encode(), media_type="text/plain", identifier=match["name"]
            )
            files.append(DemoStep("file", file=document))
    return files


def demo_png(size: int = 8, rgb: tuple[int, int, int] = (232, 93, 4)) -> bytes:
    """A ``size`` x ``size`` PNG of one colour (runyard orange), made here: no asset, no library."""
    row = b"\x00" + bytes(rgb) * size  # filter byte 0, then the pixels
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    chunks = (
        (b"IHDR", header),
        (b"IDAT", zlib.compress(row * size)),
        (b"IEND", b""),
    )
    return b"\x89PNG\r\n\x1a\n" + b"".join(_png_chunk(kind, body) for kind, body in chunks)


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body)
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def _prompt_text(part: pai.UserPromptPart | None) -> str:
    if part is None:
        return ""
    if isinstance(part.content, str):
        return part.content
    return "\n".join(item for item in part.content if isinstance(item, str))


def _delay(lines: list[str]) -> int:
    delays = [int(m["ms"]) for line in lines if (m := _DELAY_LINE.match(line))]
    return delays[-1] if delays else 0


def _fail_status(lines: list[str]) -> int | None:
    statuses = [int(m["status"]) for line in lines if (m := _FAIL_LINE.match(line))]
    return statuses[-1] if statuses else None


def _tool_step(number: int, name: str, args: str) -> DemoStep:
    call_id = f"call_{number}_{secrets.token_hex(4)}"
    return DemoStep("tool-call", tool_name=name, args=args.strip() or "{}", tool_call_id=call_id)


def _summary(part: pai.ToolReturnPart) -> str:
    content = part.content if isinstance(part.content, str) else json.dumps(part.content)
    if part.outcome == "success":
        return f"{part.tool_name} returned {content}."
    return f"{part.tool_name} failed: {content}."


def _words(kind: Literal["reasoning", "text"], text: str) -> list[DemoStep]:
    # Each word keeps its leading space, so the deltas join back into the exact text.
    return [DemoStep(kind, text=word) for word in re.findall(r"\s*\S+", text)]
