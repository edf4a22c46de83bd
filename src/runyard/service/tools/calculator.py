"""``calculator``: arithmetic on numbers, parsed with ``ast`` and evaluated node by node (no eval)."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from runyard.errors import ToolError
from runyard.tools import Tool, tool

__all__ = ["calculator", "evaluate"]

Number = int | float

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_MAX_EXPONENT = 1000
_MAX_LENGTH = 500


def evaluate(expression: str) -> Number:
    """The value of an arithmetic expression; ``ValueError`` says what is not allowed."""
    if len(expression) > _MAX_LENGTH:
        raise ValueError(f"expression longer than {_MAX_LENGTH} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not an arithmetic expression: {expression!r}") from exc
    value = _eval(tree.body)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("the result is not a finite number")
    return value


def _eval(node: ast.expr) -> Number:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        value: Number = node.value  # type: ignore[assignment]  # narrowed by the check above
        return value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        result: Number = _UNARY[type(node.op)](_eval(node.operand))
        return result
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
            raise ValueError(f"exponents are limited to ±{_MAX_EXPONENT}")
        try:
            combined: Number = _BINARY[type(node.op)](left, right)
        except ZeroDivisionError as exc:
            raise ValueError("division by zero") from exc
        except OverflowError as exc:
            raise ValueError("the result is too large") from exc
        return combined
    raise ValueError(f"only numbers and + - * / // % ** ( ) are allowed, not {ast.unparse(node)!r}")


def _calculate(expression: str) -> dict[str, Number]:
    """Evaluate an arithmetic expression exactly.

    Args:
        expression: numbers with + - * / // % ** and parentheses, e.g. "2+3*4".
    """
    try:
        return {"result": evaluate(expression)}
    except ValueError as exc:
        raise ToolError(str(exc)) from exc


calculator: Tool = tool(name="calculator")(_calculate)
