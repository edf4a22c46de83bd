"""The Temporal worker: ``python -m runyard.temporal`` runs the sample workflow and the bridge's
activities against one runyard (docs/temporal.md).

``agent_worker`` builds the same worker for code that runs its own (tests, or a service that
adds its workflows beside the sample).
"""

from __future__ import annotations

import asyncio
import os
import pkgutil
import signal
import sys
from datetime import timedelta
from typing import Annotated, Any

import grpc
import typer
from temporalio.client import Client
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

import runyard
import runyard.temporal
from runyard.temporal.bridge import DEFAULT_HEARTBEAT_SECONDS, AgentBridge
from runyard.temporal.conversation import AgentConversation

__all__ = ["API_KEY_ENV", "HEARTBEAT_THROTTLE", "TASK_QUEUE", "agent_worker", "main"]

TASK_QUEUE = "runyard-agents"
"""The task queue the worker polls unless told otherwise."""

HEARTBEAT_THROTTLE = timedelta(seconds=1)
"""How often the worker sends an activity's latest heartbeat to the server at most (the SDK's
default is 80% of the heartbeat timeout, which would show a step's progress every 24 s)."""

API_KEY_ENV = "RUNYARD_API_KEY"
"""The environment variable the worker reads runyard's API key from (never an argument, which
``ps`` would show)."""


def agent_worker(
    client: Client, bridge: AgentBridge, *, task_queue: str = TASK_QUEUE, **options: Any
) -> Worker:
    """A worker for ``AgentConversation`` and the bridge's activities; ``options`` go to
    ``temporalio.worker.Worker`` (interceptors, concurrency limits, …)."""
    defaults: dict[str, Any] = {
        "workflow_runner": _sandbox(),
        "max_heartbeat_throttle_interval": HEARTBEAT_THROTTLE,
        "default_heartbeat_throttle_interval": HEARTBEAT_THROTTLE,
    }
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[AgentConversation],
        activities=bridge.activities,
        **(defaults | options),
    )


def _sandbox() -> SandboxedWorkflowRunner:
    """Temporal's sandbox, with every module of runyard passed through from the host except the
    sample workflow's own (and its two parent packages, which a module cannot be loaded
    without). The sandbox loads a workflow's module afresh for every workflow run; loading the
    rest of runyard with it (the SDK, the service) would be slow, and is refused."""
    workflow_module = AgentConversation.__module__
    names = {f"runyard.{m.name}" for m in pkgutil.iter_modules(runyard.__path__)}
    names |= {f"runyard.temporal.{m.name}" for m in pkgutil.iter_modules(runyard.temporal.__path__)}
    names = {name for name in names if not name.endswith(".__main__")}
    names -= {"runyard.temporal", workflow_module}
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*names)
    return SandboxedWorkflowRunner(restrictions=restrictions)


async def serve_worker(
    temporal: str, namespace: str, task_queue: str, target: str, heartbeat_seconds: float
) -> None:
    """Run the worker until SIGINT or SIGTERM. Steps in flight are cancelled then, and retried
    by Temporal on another worker, which follows the same runs on."""
    key = os.environ.get(API_KEY_ENV, "")
    metadata = (("authorization", f"Bearer {key}"),) if key else ()
    client = await Client.connect(temporal, namespace=namespace)
    async with grpc.aio.insecure_channel(target) as channel:
        bridge = AgentBridge(channel, metadata=metadata, heartbeat_seconds=heartbeat_seconds)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with agent_worker(client, bridge, task_queue=task_queue):
            typer.echo(
                f"runyard temporal worker: Temporal {temporal} ({namespace}), "
                f"task queue {task_queue}, runyard gRPC {target}"
            )
            await stop.wait()


def run(
    temporal: Annotated[
        str, typer.Option(envvar="TEMPORAL_ADDRESS", help="The Temporal frontend (host:port).")
    ] = "localhost:7233",
    namespace: Annotated[
        str, typer.Option(envvar="TEMPORAL_NAMESPACE", help="The Temporal namespace.")
    ] = "default",
    task_queue: Annotated[str, typer.Option(help="The task queue to poll.")] = TASK_QUEUE,
    target: Annotated[
        str,
        typer.Option(
            "--runyard", envvar="RUNYARD_GRPC_TARGET", help="runyard's gRPC address (host:port)."
        ),
    ] = "localhost:8401",
    heartbeat_seconds: Annotated[
        float,
        typer.Option(min=0.01, help="How long tokens gather before a heartbeat carries them."),
    ] = DEFAULT_HEARTBEAT_SECONDS,
) -> None:
    """Run runyard's Temporal worker: the AgentConversation workflow and the agent-step and
    confirm activities. The API key for runyard comes from RUNYARD_API_KEY."""
    asyncio.run(serve_worker(temporal, namespace, task_queue, target, heartbeat_seconds))
    # Everything is shut down by now. Skip the interpreter's finalization: the threads of gRPC
    # and of the Temporal SDK's core may still call into Python while it tears down, which
    # aborts the process now and then (SIGABRT, "PyGILState_Release: thread state … must be
    # current") and turns a clean stop into a crash.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main() -> None:
    """Entry point of ``python -m runyard.temporal``."""
    typer.run(run)
