"""An S3-compatible server for the tests: moto's server mode (an S3 API implemented in Python, from
PyPI) on a free port, with throwaway credentials. MinIO is not in this project's registries, so
the S3 file store is tested against this instead (docs/files.md)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator

import pytest

__all__ = ["s3_endpoint"]

_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "runyard-test",
    "AWS_SECRET_ACCESS_KEY": "runyard-test-secret",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """The URL of a running S3-compatible server; boto3 finds its credentials in the
    environment while it runs."""
    server_module = pytest.importorskip("moto.server", reason="moto[server] is not installed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    saved = {name: os.environ.get(name) for name in _CREDENTIALS}
    os.environ.update(_CREDENTIALS)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
