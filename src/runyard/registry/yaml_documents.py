"""Reading the YAML documents of one catalog file, remembering the line of every key and item.

PyYAML's safe loader builds plain values (no tags that run code); its node tree, kept beside each
document, says where each mapping key and list item was written, so an error found later in the
value can name its line.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml  # type: ignore[import-untyped]  # types-PyYAML is not installed yet

__all__ = [
    "FieldPath",
    "YamlDocument",
    "YamlError",
    "field_name",
    "line_at",
    "read_documents",
]

FieldPath = tuple[str | int, ...]
"""Where a value sits in a document: mapping keys and list indexes, outermost first."""


class YamlError(Exception):
    """The file is not valid YAML (or repeats a key); ``line`` is where the parser stopped."""

    def __init__(self, line: int, message: str, path: FieldPath = ()) -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.path = path


@dataclass(frozen=True, slots=True)
class YamlDocument:
    """One document of a file: its value and the line of every key and list item in it."""

    value: Any
    lines: Mapping[FieldPath, int]


def line_at(lines: Mapping[FieldPath, int], path: FieldPath, default: int = 1) -> int:
    """The line of ``path``, or of the nearest enclosing key or item that was written."""
    for end in range(len(path), -1, -1):
        if (line := lines.get(path[:end])) is not None:
            return line
    return default


def read_documents(text: str) -> Iterator[YamlDocument]:
    """Every non-empty document of ``text``, in order; raises ``YamlError`` at the first fault."""
    # PyYAML is imported by the first catalog file read: ``runyard serve`` without a catalog never
    # pays for it (docs/benchmarks.md, cold start).
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            # Lines first: constructing flattens merge keys (``<<``) into the node in place.
            lines = _lines(node)
            value = loader.construct_document(node)
            if value is not None:
                yield YamlDocument(value, lines)
    except yaml.YAMLError as exc:
        raise _yaml_error(exc) from exc
    finally:
        loader.dispose()


def field_name(path: FieldPath) -> str:
    """``tools[2].name`` for ``("tools", 2, "name")``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


def _lines(root: yaml.Node) -> dict[FieldPath, int]:
    lines: dict[FieldPath, int] = {(): root.start_mark.line + 1}
    pending: list[tuple[FieldPath, yaml.Node, frozenset[int]]] = [((), root, frozenset())]
    while pending:
        path, node, seen = pending.pop()
        if id(node) in seen:  # an alias that contains itself
            continue
        inside = seen | {id(node)}
        for child_path, line, child in _children(path, node):
            lines.setdefault(child_path, line)
            pending.append((child_path, child, inside))
    return lines


def _children(path: FieldPath, node: yaml.Node) -> Iterator[tuple[FieldPath, int, yaml.Node]]:
    import yaml  # loaded already by read_documents

    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield (*path, index), item.start_mark.line + 1, item
    elif isinstance(node, yaml.MappingNode):
        written: set[str] = set()
        for key, value in node.value:
            name = str(key.value)
            if name in written:
                raise YamlError(key.start_mark.line + 1, f"duplicate key {name!r}", (*path, name))
            written.add(name)
            yield (*path, name), key.start_mark.line + 1, value


def _yaml_error(exc: yaml.YAMLError) -> YamlError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = mark.line + 1 if mark is not None else 1
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    return YamlError(line, f"{context} {problem}" if context else str(problem))
