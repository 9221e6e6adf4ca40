"""A recording relay in front of a Unix socket: every byte both ways, for the secret grep.

It runs on threads (not the test's event loop) because the attached app makes blocking reads
on its loop, which is also the loop the rehearsal venue serves on.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path


class Relay:
    def __init__(self, listen: Path, target: Path) -> None:
        self.listen = listen
        self.target = target
        self.traffic = bytearray()
        self._lock = threading.Lock()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(listen))
        self._server.listen(16)
        self._threads: list[threading.Thread] = []
        self._open: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(str(self.target))
            self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                thread = threading.Thread(target=self._pipe, args=(a, b), daemon=True)
                thread.start()
                self._threads.append(thread)

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                data = b""
            if not data:
                with contextlib.suppress(OSError):
                    sink.shutdown(socket.SHUT_WR)
                return
            with self._lock:
                self.traffic += data
            try:
                sink.sendall(data)
            except OSError:
                return

    def close(self) -> None:
        self._closed = True
        self._server.close()
        for sock in self._open:
            with contextlib.suppress(OSError):
                sock.close()
        with contextlib.suppress(FileNotFoundError):
            self.listen.unlink()
