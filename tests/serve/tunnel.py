"""A local TCP forward from another port, as `ssh -L 9000:127.0.0.1:8000 host` makes one: the
browser knows only the tunnel's port, never the server's."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator


def _pump(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def tunnel(target_port: int) -> Iterator[int]:
    """Forward a new loopback port to `target_port`; yields the new port."""
    listener = socket.create_server(("127.0.0.1", 0))
    open_sockets: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                near, _ = listener.accept()
                far = socket.create_connection(("127.0.0.1", target_port))
                open_sockets.extend((near, far))
                for source, sink in ((near, far), (far, near)):
                    threading.Thread(target=_pump, args=(source, sink), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()
        for sock in open_sockets:
            with contextlib.suppress(OSError):
                sock.close()
