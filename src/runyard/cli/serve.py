"""``runyard serve``: the command and its options. What it runs is in ``runyard.cli.server``, imported
when the command runs, so that ``runyard --help`` and every other command load no web server."""

from __future__ import annotations

import gc
from typing import Annotated

import typer

__all__ = ["serve"]


def serve(
    host: Annotated[
        str | None, typer.Option(help="Address to bind. (env RUNYARD_HOST, default 127.0.0.1)")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(help="HTTP port; 0 picks a free one. (env RUNYARD_PORT, default 8400)"),
    ] = None,
    grpc_port: Annotated[
        int | None,
        typer.Option(help="gRPC port; 0 turns gRPC off. (env RUNYARD_GRPC_PORT, default 8401)"),
    ] = None,
    catalog: Annotated[
        str | None,
        typer.Option(
            help="grpc://host:port: follow that runyard's catalog (a follower with no catalog "
            "files). (env RUNYARD_CATALOG_SOURCE, default: RUNYARD_CATALOG_DIR's files)"
        ),
    ] = None,
    role: Annotated[
        str | None,
        typer.Option(
            help="all: run the runs this replica accepts; api: queue them for worker replicas; "
            "worker: execute queued runs (api and worker need PostgreSQL; docs/deploy.md). "
            "(env RUNYARD_ROLE, default all)"
        ),
    ] = None,
    worker_concurrency: Annotated[
        int | None,
        typer.Option(
            help="With --role worker: runs executed at once; more wait in the queue. "
            "(env RUNYARD_WORKER_CONCURRENCY, default 16)"
        ),
    ] = None,
    insecure: Annotated[
        bool,
        typer.Option(
            "--insecure",
            help="Serve on a non-loopback address although RUNYARD_AUTH=none: anyone who can "
            "reach the port acts as the one user, with no authentication.",
        ),
    ] = False,
) -> None:
    """Serve the agents over HTTP and gRPC until Ctrl-C or SIGTERM.

    The database, event bus and model come from RUNYARD_DATABASE_URL, RUNYARD_REDIS_URL and
    RUNYARD_MODEL (or a provider key such as OPENAI_API_KEY); with none, the offline demo model.
    """
    # What serving imports (~1,700 modules, ~300k objects) lives as long as the process, yet
    # the cyclic collector walked it again and again as it grew: a tenth of the import's CPU.
    # Off while importing, then frozen out of its sight; the ~2,400 objects the imports left
    # as cyclic garbage are kept, once.
    gc.disable()
    try:
        from runyard.cli.server import serve_until_stopped
    finally:
        gc.freeze()
        gc.enable()

    flags = {
        "host": host,
        "port": port,
        "grpc_port": grpc_port,
        "catalog_source": catalog,
        "role": role,
        "worker_concurrency": worker_concurrency,
    }
    serve_until_stopped(flags, insecure)
