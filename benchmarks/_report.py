"""What every benchmark reports into docs/benchmarks.md: summary rows, and sections between markers.

A benchmark measures, then turns each figure the summary table shows into a ``Row``: what it
is, its target, what was measured and whether the measurement meets the target, decided here
from the numbers (``at_most``/``at_least``), never written by hand. ``--json PATH`` (``json_option``)
writes the rows for ``benchmarks/run_all.py``, which gathers every benchmark's rows into the
table. ``write_section`` replaces the part of the docs a benchmark owns, between its markers.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "cpu_name",
    "DOCS",
    "TIMES",
    "Row",
    "at_least",
    "at_most",
    "figure",
    "json_option",
    "load_rows",
    "observed",
    "with_unit",
    "write_rows",
    "write_section",
]

DOCS = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
NO_TARGET = "—"
TIMES = "\N{MULTIPLICATION SIGN}"


@dataclass(frozen=True)
class Row:
    """One line of the summary table; ``met`` is None when there is no target to meet."""

    what: str
    target: str
    measured: str
    met: bool | None

    @property
    def verdict(self) -> str:
        return NO_TARGET if self.met is None else ("yes" if self.met else "no")

    def as_json(self) -> dict[str, str]:
        return {
            "what": self.what,
            "target": self.target,
            "measured": self.measured,
            "met": self.verdict,
        }


def figure(value: float) -> str:
    """A number as the docs print it: thousands separated, three significant digits below 100."""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def with_unit(value: float, unit: str) -> str:
    """``figure(value)`` and its unit: ``12.5 ms``, ``18%``, and no space before ``TIMES``."""
    space = "" if unit[:1] in ("", TIMES, "%") else " "
    return f"{figure(value)}{space}{unit}"


def at_most(what: str, value: float, limit: float, unit: str, measured: str = "") -> Row:
    """A row whose target is ``value ≤ limit``; ``measured`` replaces the bare figure."""
    shown = measured or with_unit(value, unit)
    return Row(what, f"≤ {with_unit(limit, unit)}", shown, value <= limit)


def at_least(what: str, value: float, limit: float, unit: str, measured: str = "") -> Row:
    """A row whose target is ``value ≥ limit``; ``measured`` replaces the bare figure."""
    shown = measured or with_unit(value, unit)
    return Row(what, f"≥ {with_unit(limit, unit)}", shown, value >= limit)


def observed(what: str, measured: str) -> Row:
    """A row with no target: the figure is recorded, nothing is met or missed."""
    return Row(what, NO_TARGET, measured, None)


def json_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--json PATH``: where the benchmark writes its summary rows."""
    parser.add_argument(
        "--json",
        type=Path,
        metavar="PATH",
        help="also write the summary rows to PATH (benchmarks/run_all.py reads them)",
    )


def write_rows(path: Path | None, rows: Iterable[Row]) -> None:
    """Write ``rows`` as a JSON list to ``path``; nothing when no path was asked for."""
    if path is not None:
        path.write_text(json.dumps([row.as_json() for row in rows], ensure_ascii=False, indent=1))


def load_rows(path: Path) -> list[Row]:
    """The rows a benchmark wrote. ``met`` may be ``"yes"``/``"no"``/``"—"`` or a JSON bool/null."""
    rows = []
    for item in json.loads(path.read_text()):
        met = item.get("met")
        if isinstance(met, str):
            met = {"yes": True, "no": False}.get(met.strip().lower())
        rows.append(Row(str(item["what"]), str(item["target"]), str(item["measured"]), met))
    return rows


def write_section(start: str, end: str, body: str, *, heading: str = "", path: Path = DOCS) -> None:
    """Replace what lies between ``start`` and ``end`` in ``path``, leaving the rest alone.

    Where the markers are missing, they are appended (after ``heading``, if given); where the
    file is missing, it is created.
    """
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    if start not in text or end not in text:
        text = text.rstrip("\n") + "\n\n" + (f"{heading}\n\n" if heading else "")
        text += f"{start}\n{end}\n"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    path.write_text(pattern.sub(lambda _: f"{start}\n{body}\n{end}", text, count=1))


def cpu_name() -> str:
    """The machine's CPU model, for the line that says where figures were measured."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "an unknown CPU"
