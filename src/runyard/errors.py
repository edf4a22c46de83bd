"""The three families of runyard errors (STYLE.md §8), importable from every layer.

- ``ConfigurationError``: the developer using the SDK made a mistake (bad model name, bad tool).
- ``RunError`` and kin: a run failed; ``generate`` reports these on its result instead of raising.
- Control signals a tool uses on purpose (``Suspend``) live in ``runyard.tools``: they are values,
  not exceptions.
"""

from __future__ import annotations

__all__ = [
    "ConfigurationError",
    "MaxIterationsError",
    "OutputTokensExceededError",
    "ResumeDataError",
    "ResumeError",
    "RunAbortedError",
    "RunError",
    "RunLimitError",
    "RunTimeoutError",
    "ToolError",
]


class ConfigurationError(Exception):
    """The SDK was set up wrongly; the message says what to change."""


class RunError(Exception):
    """A run could not finish."""


class RunAbortedError(RunError):
    """The run was aborted by ``agent.abort()`` or an external abort signal."""

    def __init__(self) -> None:
        super().__init__("Agent run was aborted")


class RunLimitError(RunError):
    """A run reached one of its agent's limits and was stopped.

    ``reason`` is the limit's stable name (``timeout``, ``max_iterations``,
    ``max_output_tokens``): the service sends it as the ``run-finish`` reason, and the message
    says what happened in words.
    """

    reason = "limit"


class MaxIterationsError(RunLimitError):
    """The tool loop reached ``max_iterations`` without the model giving a final answer."""

    reason = "max_iterations"

    def __init__(self, max_iterations: int) -> None:
        super().__init__(
            f"Agent loop exceeded {max_iterations} iterations without reaching a stop condition"
        )
        self.max_iterations = max_iterations


class RunTimeoutError(RunLimitError):
    """The run executed longer than its agent's ``timeout_s`` (time suspended is not counted)."""

    reason = "timeout"

    def __init__(self, timeout_s: float) -> None:
        super().__init__(f"Agent run timed out after {timeout_s:g}s")
        self.timeout_s = timeout_s


class OutputTokensExceededError(RunLimitError):
    """The run's model calls produced more output tokens than its agent's ``max_output_tokens``
    allows, or need more than it has left."""

    reason = "max_output_tokens"

    def __init__(self, max_output_tokens: int, used: int) -> None:
        super().__init__(
            f"Agent run stopped: its model calls used {used} output tokens of the "
            f"{max_output_tokens} max_output_tokens allows"
        )
        self.max_output_tokens = max_output_tokens
        self.used = used


class ResumeError(RunError):
    """A resume request does not match a suspended run (unknown run or tool call, bad data)."""


class ResumeDataError(ResumeError):
    """The resume data does not fit the waiting call's resume schema (the call still waits)."""

    def __init__(self, tool_name: str, problem: str) -> None:
        super().__init__(f"Invalid resume payload: {problem}")
        self.tool_name = tool_name
        self.problem = problem


class ToolError(Exception):
    """A tool call failed; the message is what the model sees as the tool's error result."""
