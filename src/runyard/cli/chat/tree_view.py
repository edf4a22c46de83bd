"""Drawing an agent activity tree (``runyard.protocol.AgentNode``) with rich.

The orchestrator is the root; its timeline gives the order: reasoning (dimmed), text, tool calls
with their arguments and outcome, content blocks (an image, a file: named, with their type and
size), and sub-agents as nested branches. Pure: node in, renderable out.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from rich.tree import Tree

from runyard.messages import (
    AudioPart,
    CitationPart,
    ContentBlock,
    FilePart,
    ImagePart,
    JsonPart,
    VideoPart,
    media_size,
)
from runyard.protocol import (
    AgentNode,
    AgentToolCall,
    TaskItem,
    TimelineChild,
    TimelineContent,
    TimelineReasoning,
    TimelineText,
    TimelineToolCall,
)

__all__ = ["block_label", "render_tree", "short_json"]

_LIMIT = 400
_TASK_MARKS = {"pending": "○", "in_progress": "▶", "completed": "✔", "failed": "✗"}


def short_json(value: Any, limit: int = _LIMIT) -> str:
    """``value`` as one line of JSON, cut to ``limit`` characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def block_label(block: ContentBlock) -> str:
    """One line for a content block: ``image image/png, 74 bytes (demo.png)``."""
    if isinstance(block, ImagePart | AudioPart | VideoPart | FilePart):
        size = media_size(block)
        where = f"{size} bytes" if size is not None else block.url or f"file {block.file_id}"
        name = f" ({block.filename})" if block.filename else ""
        return f"{block.type} {block.mime_type or ''}, {where}{name}".replace(" ,", ",")
    if isinstance(block, CitationPart):
        return f"source {block.title or ''} {block.url or ''}".strip()
    if isinstance(block, JsonPart):
        return f"json {short_json(block.data)}"
    return short_json(block.model_dump(mode="json"))


def render_tree(node: AgentNode) -> Tree:
    """The whole tree under ``node``."""
    tree = Tree(_agent_label(node), guide_style="dim")
    _fill(tree, node)
    return tree


def _fill(tree: Tree, node: AgentNode) -> None:
    calls = {call.tool_call_id: call for call in node.tool_calls}
    children = {child.agent_id: child for child in node.children}
    if node.tasks:
        _add_tasks(tree, node.tasks)
    for entry in node.timeline:
        if isinstance(entry, TimelineReasoning):
            tree.add(Text(f"💭 {entry.content.strip()}", style="dim italic"))
        elif isinstance(entry, TimelineText):
            tree.add(Text(f"💬 {entry.content.strip()}"))
        elif isinstance(entry, TimelineContent):
            for block in entry.blocks:
                tree.add(Text(f"📎 {block_label(block)}"))
        elif isinstance(entry, TimelineToolCall) and entry.tool_call_id in calls:
            _add_call(tree, calls[entry.tool_call_id])
        elif isinstance(entry, TimelineChild) and entry.agent_id in children:
            _fill(tree.add(_agent_label(children[entry.agent_id])), children[entry.agent_id])
    _add_ending(tree, node)


def _agent_label(node: AgentNode) -> RenderableType:
    label = Text(f"🤖 {node.role}", style="bold")
    if node.tools:
        label.append(f"  [{', '.join(node.tools)}]", style="dim")
    return label


def _add_call(tree: Tree, call: AgentToolCall) -> None:
    branch = tree.add(
        Text.assemble(("🔧 ", ""), (call.tool_name, "cyan"), " ", (short_json(call.args), "dim"))
    )
    if call.error is not None:
        branch.add(Text(f"✗ {call.error}", style="red"))
    elif not call.is_loading:
        branch.add(Text(f"→ {short_json(call.result)}", style="green"))
    elif call.confirmation is not None:
        branch.add(Text(f"❓ {call.confirmation.message}", style="yellow"))
    else:
        branch.add(Text("⋯ running", style="dim"))


def _add_tasks(tree: Tree, tasks: list[TaskItem]) -> None:
    checklist = tree.add(Text("📋 tasks", style="bold"))
    for task in tasks:
        style = "green" if task.status == "completed" else "red" if task.status == "failed" else ""
        checklist.add(Text(f"{_TASK_MARKS[task.status]} {task.description}", style=style))


def _add_ending(tree: Tree, node: AgentNode) -> None:
    if node.status_message:
        tree.add(Text(f"⋯ {node.status_message}", style="dim"))
    if node.error_details is not None:
        tree.add(Text(f"⚠ {node.error_details.content}", style="red"))
    if node.status == "completed" and node.result:
        tree.add(Text(f"✅ {node.result}", style="green"))
    elif node.status == "cancelled":
        reason = f" ({node.cancellation_reason})" if node.cancellation_reason else ""
        tree.add(Text(f"⏹ cancelled{reason}", style="yellow"))
    elif node.status == "error":
        tree.add(Text(f"✗ failed: {node.error or 'unknown error'}", style="red"))
