"""A TCP proxy the test controls: it forwards every connection to a target port, and ``cut()``
drops all the connections open now (both ends) while it keeps accepting new ones — what a
network blip or a load balancer's idle timeout does to a browser's event stream."""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType


class TcpProxy:
    """Listens on a free loopback port (``port``) and forwards to ``target_port``."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self.accepted = 0
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> TcpProxy:
        self._spawn(self._accept)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        self._listener.close()
        self.cut()
        for thread in self._threads:
            thread.join(timeout=5)

    def cut(self) -> None:
        """Drop every connection open now; new ones are still accepted."""
        with self._lock:
            doomed, self._open = self._open, set()
        for sock in doomed:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _spawn(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # the listener was closed
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            self._forward(client, upstream)

    def _forward(self, client: socket.socket, upstream: socket.socket) -> None:
        with self._lock:
            self.accepted += 1
            self._open |= {client, upstream}
        done = threading.Barrier(2, action=lambda: self._close(client, upstream))
        self._spawn(self._pump, client, upstream, done)
        self._spawn(self._pump, upstream, client, done)

    def _pump(self, source: socket.socket, sink: socket.socket, done: threading.Barrier) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
        done.wait()

    def _close(self, *pair: socket.socket) -> None:
        with self._lock:
            self._open -= set(pair)
        for sock in pair:
            sock.close()
