"""A blocking client of a profile's control socket: what the CLI and the attached app use.

Standard library only (socket, json): a CLI call through a running daemon must not pay for
importing the engine, httpx or Textual.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tclk_tui.daemon.paths import socket_path
from tclk_tui.daemon.wire import INTERNAL_ERROR, RpcError, request


class NoDaemon(OSError):
    """Nothing answers on the profile's socket (none runs, or a dead one left its file)."""


class DaemonLost(OSError):
    """The daemon closed the connection before answering."""


class DaemonClient:
    """One connection; `call` sends a request and reads until its answer (notifications that
    arrive meanwhile are kept for `notifications`)."""

    def __init__(self, path: Path, *, timeout_s: float | None = 120.0) -> None:
        self.path = path
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout_s)
        try:
            sock.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            sock.close()
            raise NoDaemon(f"no daemon on {path}: {exc.strerror}") from None
        except BaseException:
            sock.close()
            raise
        self._sock = sock
        self._reader = sock.makefile("rb")
        self._ids = itertools.count(1)
        self.pending: list[dict[str, Any]] = []

    @classmethod
    def for_profile(cls, profile_dir: Path, **kwargs: Any) -> DaemonClient:
        return cls(socket_path(profile_dir), **kwargs)

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        id_ = next(self._ids)
        self._sock.sendall(request(id_, method, params))
        while True:
            message = self._read()
            if "id" not in message:
                self.pending.append(message)
                continue
            if message.get("id") != id_:
                continue
            if "error" in message:
                err = message["error"] if isinstance(message["error"], dict) else {}
                raise RpcError(int(err.get("code", INTERNAL_ERROR)),
                               str(err.get("message", "error")), err.get("data"))
            return message.get("result")

    def notifications(self) -> Iterator[dict[str, Any]]:
        """Notifications as they arrive (after `call("events.subscribe")`), until closed."""
        while True:
            while self.pending:
                yield self.pending.pop(0)
            message = self._read()
            if "id" not in message:
                yield message

    def _read(self) -> dict[str, Any]:
        # Whole, whatever its length: a reply is the owner's own answer (only requests are
        # bounded, on the owner's side), and a cut one would be read as the next message.
        line = self._reader.readline()
        if not line:
            raise DaemonLost("the daemon closed the connection")
        if not line.endswith(b"\n"):
            raise DaemonLost("the daemon closed the connection in the middle of a reply")
        try:
            message = json.loads(line)
        except ValueError:
            raise DaemonLost("the daemon sent a line that is not JSON") from None
        if not isinstance(message, dict):
            raise DaemonLost("the daemon sent something that is not a JSON-RPC message")
        return message

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._reader.close()
        with contextlib.suppress(OSError):
            self._sock.close()

    def __enter__(self) -> DaemonClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def try_connect(profile_dir: Path, **kwargs: Any) -> DaemonClient | None:
    """A client if a daemon answers on the profile's socket, else None."""
    try:
        return DaemonClient.for_profile(profile_dir, **kwargs)
    except NoDaemon:
        return None


def call_owner(profile_dir: Path, method: str, params: dict[str, Any]) -> tuple[bool, Any]:
    """(True, answer) from the profile's owner, or (False, None) when no owner answers.

    Once a request is sent, a lost connection is an error, never a reason to run the command a
    second time elsewhere: the owner may have performed it.
    """
    client = try_connect(profile_dir)
    if client is None:
        return False, None
    with client:
        return True, client.call(method, params)
