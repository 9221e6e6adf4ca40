"""Running a venue: inside the caller's event loop for tests, or blocking for `tclk-tui venue`.

`start_venue` drives uvicorn's own startup on a pre-bound loopback socket (so the port is known
before the first request) and tears down without uvicorn's fixed shutdown sleeps: it stops
listening, wakes every parked long-poll, lets in-flight requests finish, and closes the
connections, all bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from starlette.applications import Starlette

from tclk_tui.rehearsal.server import VenueConfig, create_app
from tclk_tui.rehearsal.venue import Venue

STARTUP_TIMEOUT_S = 10.0
SHUTDOWN_TIMEOUT_S = 10.0
H11_MAX_INCOMPLETE_EVENT_SIZE = 16384


@dataclass
class RunningVenue:
    """A venue serving on loopback: where it is, its app, and its model (for fault injection)."""

    url: str
    app: Starlette
    venue: Venue
    server: uvicorn.Server

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])


def _uvicorn_config(
    app: Starlette, host: str, port: int, venue: Venue, *, quiet: bool = True
) -> uvicorn.Config:
    """Like the public deployment: h11 (raw spaces in a request line are a 400), a 16 KiB
    incomplete-event cap, and a concurrency ceiling answered with 503. Quiet leaves the
    process's logging alone, which is what a test run wants."""
    logging_options: dict[str, object] = (
        {"log_config": None, "log_level": "warning", "access_log": False}
        if quiet
        else {"log_level": "info"}
    )
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http="h11",
        h11_max_incomplete_event_size=H11_MAX_INCOMPLETE_EVENT_SIZE,
        lifespan="off",
        limit_concurrency=venue.config.limit_concurrency,
        timeout_graceful_shutdown=int(SHUTDOWN_TIMEOUT_S),
        **logging_options,  # type: ignore[arg-type]
    )


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must be IPPROTO_TCP: asyncio only sets TCP_NODELAY on accepted sockets whose proto
    # says TCP, and without it every reply waits out the peer's delayed ACK (~40 ms).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.setblocking(False)
    return sock


async def _serve_until(server: uvicorn.Server, sock: socket.socket, stop: asyncio.Event) -> None:
    config = server.config
    config.load()
    server.lifespan = config.lifespan_class(config)
    await server.startup(sockets=[sock])
    await server.on_tick(0)  # sets the default Date/Server headers once
    await stop.wait()
    await _drain(server)


async def _drain(server: uvicorn.Server) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SHUTDOWN_TIMEOUT_S
    for listener in server.servers:
        listener.close()
    state = server.server_state
    for connection in list(state.connections):
        connection.shutdown()
    tasks = set(state.tasks)
    if tasks:
        _, pending = await asyncio.wait(tasks, timeout=SHUTDOWN_TIMEOUT_S)
        for task in pending:
            task.cancel()
    for connection in list(state.connections):
        connection.shutdown()
    while state.connections and loop.time() < deadline:
        await asyncio.sleep(0.005)
    for listener in server.servers:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(listener.wait_closed(), max(0.1, deadline - loop.time()))


@contextlib.asynccontextmanager
async def start_venue(
    config: VenueConfig | None = None,
    data_dir: Path | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
) -> AsyncIterator[RunningVenue]:
    """Serve a fresh venue on `host:port` (0 picks a free port) for the `async with` body."""
    app = create_app(config, data_dir)
    venue: Venue = app.state.venue
    sock = _bind(host, port)
    bound_port = sock.getsockname()[1]
    server = uvicorn.Server(_uvicorn_config(app, host, bound_port, venue))
    stop = asyncio.Event()
    task = asyncio.create_task(_serve_until(server, sock, stop), name=f"venue:{bound_port}")
    try:
        await _wait_started(server, task)
        shown = f"[{host}]" if ":" in host else host
        yield RunningVenue(f"http://{shown}:{bound_port}", app, venue, server)
    finally:
        venue.close()
        stop.set()
        try:
            await asyncio.wait_for(task, SHUTDOWN_TIMEOUT_S + 1.0)
        finally:
            sock.close()


async def _wait_started(server: uvicorn.Server, task: asyncio.Task[None]) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STARTUP_TIMEOUT_S
    while not server.started:
        if task.done():
            task.result()  # surfaces the startup error
            raise RuntimeError("the venue server stopped before it started")
        if loop.time() > deadline:
            raise TimeoutError("the venue server did not start in time")
        await asyncio.sleep(0.002)


def url_of(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(
    host: str = "127.0.0.1",
    port: int = 8080,
    data_dir: Path | None = None,
    *,
    config: VenueConfig | None = None,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve a venue until interrupted (the `tclk-tui venue` command).

    The socket is bound first, so `on_listening` hears the URL only once it is really ours
    (a port in use fails before anything is said)."""
    app = create_app(config, data_dir)
    sock = _bind(host, port)
    if on_listening is not None:
        on_listening(url_of(host, port))
    server = uvicorn.Server(_uvicorn_config(app, host, port, app.state.venue, quiet=False))
    server.run(sockets=[sock])
