"""The control socket: JSON-RPC 2.0 over a 0600 Unix socket, for this user only.

Each line is one request; answers go back on the same connection, and a connection that called
`events.subscribe` also receives engine events as notifications (recent ones replayed first, so
a face that re-attaches sees what happened while it was away). A malformed request gets a
JSON-RPC error and the connection stays usable; nothing a client sends stops the server. A
request runs to its end even if the client goes away mid-way: the engine journals before it
posts, so a vanished client never leaves half an action.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from tclk_tui.daemon import wire
from tclk_tui.daemon.codec import to_wire
from tclk_tui.daemon.paths import ensure_private_dir
from tclk_tui.daemon.peer import peer_refusal, peer_uid
from tclk_tui.daemon.wire import RpcError
from tclk_tui.engine.events import EventBus

log = logging.getLogger("tclk_tui.daemon")

Dispatch = Callable[[str, dict[str, Any]], Awaitable[Any]]
REPLAY = 200  # recent events kept for faces that attach later


class SocketInUse(OSError):
    """A live process already answers on the socket path."""


class ControlServer:
    """Serves `dispatch` (the engine's commands) plus the daemon's own methods on `path`.

    Run it only while holding the profile lock: a socket file found at start-up then belongs to
    a dead owner (or to nobody) and is replaced.
    """

    def __init__(self, path: Path, dispatch: Dispatch, events: EventBus, *,
                 status: Callable[[], dict[str, Any]],
                 on_stop: Callable[[], None] | None = None,
                 uid_of: Callable[[socket.socket], int | None] = peer_uid,
                 extra: Mapping[str, Callable[[dict[str, Any]], Awaitable[Any]]] | None = None
                 ) -> None:
        self.path = path
        self._dispatch = dispatch
        # Methods a face serves beside the engine's (the agents' desk): they order their own
        # engine calls, and one may wait for the operator, so they never hold the engine lock.
        self._extra = dict(extra or {})
        self._events = events
        self._status = status
        self._on_stop = on_stop
        self._uid_of = uid_of
        self._server: asyncio.AbstractServer | None = None
        self._recent: collections.deque[dict[str, Any]] = collections.deque(maxlen=REPLAY)
        self._bus_queue: asyncio.Queue[Any] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._subscribers: set[asyncio.Queue[dict[str, Any] | None]] = set()
        self.clients = 0

    async def start(self) -> None:
        ensure_private_dir(self.path.parent)
        if self.path.exists() or self.path.is_symlink():
            if await _answers(self.path):
                raise SocketInUse(f"a live process already serves {self.path}")
            log.info("replacing a stale control socket left by a dead owner: %s", self.path)
            self.path.unlink()
        old = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(self._serve, path=str(self.path),
                                                           limit=wire.MAX_LINE)
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        self._bus_queue = self._events.subscribe()
        self._spawn(self._fan_out(self._bus_queue))
        log.info("control socket listening on %s", self.path)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
        if self._bus_queue is not None:
            self._events.unsubscribe(self._bus_queue)
        for queue in list(self._subscribers):
            queue.put_nowait(None)
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _fan_out(self, queue: asyncio.Queue[Any]) -> None:
        while True:
            event = await queue.get()
            wired = to_wire(event)
            self._recent.append(wired)
            for sub in list(self._subscribers):
                sub.put_nowait(wired)

    # -- one connection -------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        try:
            refusal = peer_refusal(self._uid_of(sock) if sock is not None else None)
        except OSError as exc:
            refusal = f"the peer cannot be checked: {exc}"
        if refusal is not None:
            log.warning("control socket: refused a client: %s", refusal)
            with contextlib.suppress(Exception):
                writer.write(wire.error(None, RpcError(wire.REFUSED, refusal,
                                                       {"kind": "refused",
                                                        "message": refusal})))
                await writer.drain()
            writer.close()
            return
        self.clients += 1
        subscription: asyncio.Queue[dict[str, Any] | None] | None = None
        pump: asyncio.Task[Any] | None = None
        try:
            while True:
                try:
                    line = await reader.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    await _send(writer, wire.error(None, RpcError(
                        wire.INVALID_REQUEST, f"a request line is limited to {wire.MAX_LINE} "
                        "bytes")))
                    break
                except ConnectionError:
                    break
                if not line:
                    break
                if not line.strip():
                    continue
                try:
                    id_, method, params = wire.parse_request(line)
                except RecursionError:  # valid JSON nested deeper than the parser goes
                    log.info("control socket: malformed request: nested too deep")
                    await _send(writer, wire.error(None, RpcError(
                        wire.PARSE_ERROR, "not JSON this server reads: nested too deep")))
                    continue
                except RpcError as exc:
                    log.info("control socket: malformed request: %s", exc.message)
                    await _send(writer, wire.error(None, exc))
                    continue
                if method == "events.subscribe":
                    if subscription is None:
                        subscription = asyncio.Queue()
                        replay = list(self._recent) if params.get("replay", True) else []
                        for item in replay:
                            subscription.put_nowait(item)
                        self._subscribers.add(subscription)
                        pump = self._spawn(_pump(subscription, writer))
                        answer: Any = {"subscribed": True, "replayed": len(replay)}
                    else:
                        answer = {"subscribed": True, "replayed": 0}
                    if id_ is not None:
                        await _send(writer, wire.result(id_, answer))
                    continue
                # A task of its own: it runs to its end even if this client goes away.
                task = self._spawn(self._answer(id_, method, params))
                reply = await asyncio.shield(task)
                if reply is not None:
                    await _send(writer, reply)
        finally:
            self.clients -= 1
            if subscription is not None:
                self._subscribers.discard(subscription)
                subscription.put_nowait(None)
            if pump is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pump
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(self, id_: Any, method: str, params: dict[str, Any]) -> bytes | None:
        try:
            value = await self._call(method, params)
        except RpcError as exc:
            return wire.error(id_, exc) if id_ is not None else None
        except Exception as exc:  # never let one call take the server down
            log.exception("control socket: %s failed unexpectedly", method)
            err = RpcError(wire.INTERNAL_ERROR, f"unexpected {type(exc).__name__}",
                           {"kind": "internal", "message": f"unexpected {type(exc).__name__}"})
            return wire.error(id_, err) if id_ is not None else None
        return wire.result(id_, value) if id_ is not None else None

    async def _call(self, method: str, params: dict[str, Any]) -> Any:
        if method == "daemon.status":
            return {**self._status(), "clients": self.clients,
                    "subscribers": len(self._subscribers)}
        if method == "daemon.stop":
            log.info("stop requested over the control socket")
            if self._on_stop is not None:
                asyncio.get_running_loop().call_soon(self._on_stop)
            return {"stopping": True, "pid": os.getpid()}
        if method in self._extra:
            return await self._extra[method](params)
        return await self._dispatch(method, params)


async def _pump(queue: asyncio.Queue[dict[str, Any] | None],
                writer: asyncio.StreamWriter) -> None:
    while True:
        item = await queue.get()
        if item is None:
            return
        if not await _send(writer, wire.notification("event", {"event": item})):
            return


async def _send(writer: asyncio.StreamWriter, data: bytes) -> bool:
    if writer.is_closing():
        return False
    try:
        writer.write(data)
        await writer.drain()
    except (ConnectionError, RuntimeError):
        return False
    return True


async def _answers(path: Path) -> bool:
    """Whether something accepts connections on `path` (a live owner), within a second."""
    try:
        async with asyncio.timeout(1.0):
            _reader, writer = await asyncio.open_unix_connection(str(path))
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return True


