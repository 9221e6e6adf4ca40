"""`tclk-tui serve`: the same app in a browser, through textual-serve, on loopback only.

textual-serve has no authentication: whoever reaches its port drives the wallet. So it listens
on 127.0.0.1 and nowhere else, and an operator on another machine reaches it through an SSH
tunnel (`ssh -L 8000:127.0.0.1:8000 host`), which authenticates them. Loopback alone does not
stop a web page in the operator's own browser from talking to the tunnel's end (DNS rebinding,
cross-site WebSockets), so the page and its socket are answered only for a loopback `Host`, and
the socket only for an `Origin` that is the page itself.

Every browser connection runs the app as its own child process (textual-serve's model), with
the command line built here; a passphrase never goes on that line (other local users can read
command lines): it reaches the child through the environment, as `--passphrase-env` names it.
The page is our own template: textual-serve's loads a font from the internet, this one loads
only textual-serve's local static files.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import shlex
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from tclk_tui.engine.commands import CommandError

HOST = "127.0.0.1"
# What an operator may write for the one address served; anything else is refused.
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost"})
# What a browser may call the server in `Host`: a tunnel's end is loopback too.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
PAGE_DIR = Path(__file__).with_name("serve_page")
PAGE = "app_index.html"
STATIC_URL = "/static/"
TITLE = "tclk-tui"
# How long a stop waits for the served apps to quit (each closes its own wallet).
STOP_TIMEOUT_S = 20.0
# How long a closing socket waits for the page's answer (a live browser answers at once).
CLOSE_TIMEOUT_S = 3.0
# The largest terminal a page may ask for, in cells either way.
MAX_CELLS = 500


def check_host(host: str) -> str:
    """The address to listen on: loopback, or a refusal that says why."""
    if host not in LOOPBACK_NAMES:
        raise CommandError(
            "usage", f"serve listens on 127.0.0.1 only, not {host!r}: the served app has no "
            "authentication, so anyone who reaches the port drives the wallet. From another "
            "machine, use an SSH tunnel: ssh -L 8000:127.0.0.1:8000 host")
    return HOST


def child_command(argv: Sequence[str]) -> str:
    """The shell line textual-serve runs for each browser connection: this Python, this
    package, `argv` quoted."""
    return shlex.join([sys.executable, "-m", "tclk_tui.cli", *argv])


def _host_name(request: web.Request) -> str:
    """The name part of the request's `Host`, lowercased ("" when absent)."""
    host = (request.headers.get("Host") or "").lower()
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if ":" in host else host


def refusal(request: web.Request) -> str | None:
    """Why this request is not answered, or None: a page asked under another name than
    loopback (a rebound DNS name), or a socket opened from another origin than the page."""
    if _host_name(request) not in LOOPBACK_HOSTS:
        return "this server answers only on 127.0.0.1 (open it through an SSH tunnel)"
    if request.path == "/ws" and request.headers.get("Origin") != f"http://{request.host}":
        return "the terminal socket is opened only by the page this server serves"
    return None


class LoopbackServer(Server):
    """textual-serve's Server on 127.0.0.1, with a page that needs no internet and a guard on
    `Host` and `Origin`."""

    def __init__(self, command: str, port: int) -> None:
        super().__init__(command, host=HOST, port=port, title=TITLE)
        self._sockets: set[web.WebSocketResponse] = set()
        self._sessions: set[asyncio.Future[None]] = set()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"

    def web_app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(PAGE_DIR), autoescape=True)
        app.add_routes([
            web.get("/", self.handle_index, name="index"),
            web.get("/ws", self.handle_websocket, name="websocket"),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.static("/static", self.statics_path, name="static"),
        ])
        app.on_shutdown.append(self._end_sessions)
        return app

    @web.middleware
    async def _guard(self, request: web.Request,
                     handler: Callable[[web.Request], Any]) -> web.StreamResponse:
        reason = refusal(request)
        if reason is not None:
            raise web.HTTPForbidden(text=reason)
        return await handler(request)

    async def handle_index(self, request: web.Request) -> web.Response:  # type: ignore[override]
        """The page, with relative URLs only: the browser may reach it through a tunnel's
        other port."""
        font_size = min(max(_cells(request.query.get("fontsize"), 16), 6), 72)
        return aiohttp_jinja2.render_template(PAGE, request, {
            "title": TITLE, "static_url": STATIC_URL, "font_size": font_size})

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One browser page: its own app process, fed the page's keys and sizes.

        The session runs in a task of its own, so a stopping server (which cancels request
        handlers) does not cut it short: `_end_sessions` waits for each app to quit."""
        websocket = web.WebSocketResponse(heartbeat=15, timeout=CLOSE_TIMEOUT_S)
        width = _cells(request.query.get("width"), 80)
        height = _cells(request.query.get("height"), 24)
        await websocket.prepare(request)
        session = asyncio.ensure_future(self._session(websocket, width, height))
        self._sessions.add(session)
        session.add_done_callback(self._sessions.discard)
        await asyncio.shield(session)
        return websocket

    async def _session(self, websocket: web.WebSocketResponse, width: int, height: int) -> None:
        async def close() -> None:
            await websocket.close()

        self._sockets.add(websocket)
        try:
            service = _AppService(self.command, write_bytes=_unless_closed(websocket.send_bytes),
                                  write_str=_unless_closed(websocket.send_str), close=close,
                                  download_manager=self.download_manager, debug=self.debug)
            await service.start(width, height)
            try:
                await _relay(websocket, service)
            finally:
                await service.stop()  # tells the app to quit, and waits for it to end
        finally:
            self._sockets.discard(websocket)

    async def _end_sessions(self, app: web.Application) -> None:
        """Closing each page's socket makes its session tell its app to quit and wait for it,
        so every wallet is closed and every demo profile deleted before the server ends."""
        for websocket in list(self._sockets):
            await websocket.close(code=WSCloseCode.GOING_AWAY, message=b"server stopping")
        if self._sessions:
            await asyncio.wait(list(self._sessions), timeout=STOP_TIMEOUT_S)

    async def run(self, announce: Callable[[str], None]) -> None:
        """Listen, say where, and serve until SIGINT, SIGTERM or SIGHUP."""
        self.initialize_logging()
        runner = web.AppRunner(self.web_app(), handle_signals=False, access_log=None,
                               shutdown_timeout=STOP_TIMEOUT_S)
        await runner.setup()
        try:
            site = web.TCPSite(runner, HOST, self.port)
            try:
                await site.start()
            except OSError as exc:
                raise CommandError("usage", _bind_failure(self.port, exc)) from None
            announce(self.url)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.add_signal_handler(signum, stop.set)
            await stop.wait()
        finally:
            await runner.cleanup()


class _AppService(AppService):
    """textual-serve's app process, whose page hears when it ends however it ends: an app that
    failed to start or died leaves "Session ended", not a page that waits for ever."""

    async def run(self) -> None:
        try:
            await super().run()
        finally:
            await self.remote_close()


def _unless_closed(send: Callable[[Any], Awaitable[None]]) -> Callable[[Any], Awaitable[None]]:
    """A write to the page that is dropped once the page is gone, never raised: the app's
    output is then still read (and dropped) until it has quit, so it is never left blocked
    on a full pipe, half-way through closing its wallet or deleting its demo profile."""

    async def write(data: Any) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            await send(data)

    return write


def _cells(text: str | None, default: int) -> int:
    """A terminal size the page asked for, within reason."""
    if text is None or not text.isascii() or not text.isdigit():
        return default
    return min(max(int(text), 1), MAX_CELLS)


async def _relay(websocket: web.WebSocketResponse, service: AppService) -> None:
    """The page's messages to its app; anything malformed is ignored, never fatal."""
    async for message in websocket:
        if message.type != WSMsgType.TEXT:
            continue
        try:
            envelope = json.loads(message.data)
        except ValueError:
            continue
        if not isinstance(envelope, list) or not envelope:
            continue
        kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8"))
        elif kind == "resize" and isinstance(data, dict):
            width, height = data.get("width"), data.get("height")
            if isinstance(width, int) and isinstance(height, int):
                await service.set_terminal_size(min(max(width, 1), MAX_CELLS),
                                                min(max(height, 1), MAX_CELLS))
        elif kind == "ping" and isinstance(data, str):
            await websocket.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()


def _bind_failure(port: int, exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} on 127.0.0.1 is already in use: choose another with --port"
    if exc.errno == errno.EACCES:
        return f"port {port} on 127.0.0.1 needs privileges: choose one above 1023 with --port"
    return f"cannot listen on 127.0.0.1 port {port}: {exc.strerror or exc}"


def listening_lines(url: str, port: int, what: str) -> list[str]:
    """What `serve` prints once it listens: where, why loopback only, the tunnel line."""
    return [
        f"serving {what} at {url}",
        "it listens on 127.0.0.1 only: it has no authentication, so anyone who reaches the "
        "port drives the wallet",
        f"from your own machine: ssh -L {port}:127.0.0.1:{port} {socket.gethostname()}  "
        f"then open {url}",
        "ctrl+c stops it (each open page's app quits first)",
    ]


def serve(argv: Sequence[str], port: int, what: str, say: Callable[[str], None]) -> None:
    """Serve the app started by `tclk-tui <argv>` on 127.0.0.1:`port` until stopped."""
    server = LoopbackServer(child_command(argv), port)

    def announce(url: str) -> None:
        for line in listening_lines(url, port, what):
            say(line)
        sys.stdout.flush()

    asyncio.run(server.run(announce))
