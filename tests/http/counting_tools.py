"""A tool factory ``counting`` for real server processes: each tool it builds appends ``start``
and ``done`` to a file per tool (in ``dir``) around each run, so a test counts executions across
processes; with ``hold``, a run blocks while the file ``hold`` exists in ``dir`` (the process is
killed mid-tool). Install it with ``server_process.install_tool_plugin(site, "counting",
PLUGIN)``; ``counted_tools`` is the catalog of the two tools the process tests count."""

from pathlib import Path

_COUNTED = """\
kind: tool
id: charge
factory: counting
parameters: {{dir: "{dir}"}}
---
kind: tool
id: slow
factory: counting
retry_safe: {retry_safe}
parameters: {{dir: "{dir}", hold: true}}
"""


def counted_tools(folder: Path, *, retry_safe: bool = True) -> str:
    """Catalog documents of ``charge`` and ``slow``, counted in ``folder``; ``slow`` holds while
    ``folder / "hold"`` exists, and is ``retry_safe`` (run again after a takeover) or not."""
    return _COUNTED.format(dir=folder, retry_safe=str(retry_safe).lower())


PLUGIN = """\
import asyncio
from pathlib import Path

from runyard.registry.tools import ToolConfiguration
from runyard.tools import tool


class Counting:
    def build(self, context, deps, exec_ctx):
        folder = Path(context.parameters["dir"])
        name = context.name

        @tool(name=name, description=f"Does {name}.")
        async def counted(label: str = "") -> str:
            with (folder / name).open("a") as log:
                log.write("start\\n")
            if context.parameters.get("hold") and (folder / "hold").exists():
                exec_ctx.emit_progress(f"{name} holding")
                await asyncio.Event().wait()
            with (folder / name).open("a") as log:
                log.write("done\\n")
            return f"{name} done"

        return ToolConfiguration.single(counted, context)


FACTORY = Counting()
"""
