"""Shared test helpers: venue-shaped records, and a real HTTP server for hostile-venue scripts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from tclk_tui.technocore.identity import Identity

RFC1_SEED = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC2_SEED = bytes.fromhex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb")
RFC3_SEED = bytes.fromhex("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7")
PAYER = Identity.from_seed(RFC1_SEED)
PAYEE = Identity.from_seed(RFC2_SEED)
STRANGER = Identity.from_seed(RFC3_SEED)


def ts_for(seq: int) -> str:
    return f"2026-01-01T00:00:{seq % 60:02d}.{seq:06d}Z"


def signed(identity: Identity, room: str, seq: int, text: str, nonce: int | None = None,
           *, sign_room: str | None = None) -> dict:
    """A record as the newest venue serves it (sig included), optionally signed for another
    room (a record copied across rooms)."""
    nonce = seq + 1000 if nonce is None else nonce
    return {
        "seq": seq,
        "ts": ts_for(seq),
        "from": identity.did,
        "text": text,
        "nonce": nonce,
        "sig": identity.sign(sign_room or room, nonce, text),
    }


def unsigned(nick: str, seq: int, text: str) -> dict:
    return {"seq": seq, "ts": ts_for(seq), "from": nick, "text": text}


def view(room: str, messages: list, *, last_seq: int | None = None, generation: int | None = 1,
         wait_held: bool | None = None, **extra) -> dict:
    seqs = [m["seq"] for m in messages if isinstance(m, dict) and "seq" in m]
    body = {
        "room": room,
        "count": len(messages),
        "first_seq": seqs[0] if seqs else None,
        "last_seq": last_seq if last_seq is not None else (seqs[-1] if seqs else 0),
        "messages": messages,
    }
    if generation is not None:
        body["generation"] = generation
    if wait_held is not None:
        body["wait_held"] = wait_held
    body.update(extra)
    return body


def export_body(messages: list[dict]) -> bytes:
    return b"".join(
        json.dumps(m, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        for m in messages
    )


class Sleeps:
    """An injected sleep: records what was asked and returns at once."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)
        await asyncio.sleep(0)


Handler = Callable[[Request], Awaitable[Response]]


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    body: bytes


@dataclass
class ScriptedVenue:
    """A real HTTP server whose replies are scripted per request: steps are consumed in order,
    then `fallback` answers. Every request is recorded in `seen`."""

    steps: deque[Response | Handler] = field(default_factory=deque)
    fallback: Handler | None = None
    seen: list[Seen] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    def add(self, *steps: Response | Handler) -> None:
        self.steps.extend(steps)

    async def handle(self, request: Request) -> Response:
        body = await request.body()
        self.seen.append(Seen(request.method, request.url.path, dict(request.query_params), body))
        if self.steps:
            step = self.steps.popleft()
            if isinstance(step, Response):
                return step
            return await step(request)
        if self.fallback is not None:
            return await self.fallback(request)
        return PlainTextResponse("404 no route matched\n", status_code=404)

    async def stall(self, _request: Request) -> Response:
        """Hold the request until the test ends (a server that accepted and went silent)."""
        await self.release.wait()
        return PlainTextResponse("late\n")

    def app(self) -> Starlette:
        return Starlette(routes=[Route("/{path:path}", self.handle, methods=["GET", "POST"])])


def json_reply(data: object, status: int = 200) -> Response:
    return JSONResponse(data, status_code=status)


def text_reply(text: str, status: int) -> Response:
    return PlainTextResponse(text, status_code=status)


@contextlib.asynccontextmanager
async def serve_app(app: Starlette) -> AsyncIterator[str]:
    """Run `app` with uvicorn on a free loopback port in this event loop; yield its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="off",
                            timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(1000):
            if server.started or task.done():
                break
            await asyncio.sleep(0.005)
        if not server.started:
            raise RuntimeError("test server did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()


@contextlib.asynccontextmanager
async def scripted() -> AsyncIterator[tuple[ScriptedVenue, str]]:
    venue = ScriptedVenue()
    async with serve_app(venue.app()) as url:
        try:
            yield venue, url
        finally:
            venue.release.set()
