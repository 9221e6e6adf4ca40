"""Transport-level faults a test can switch on: canned replies and stalled requests.

The venue's own refusals come from its rules; these are for what the rules never produce but a
real deployment does (a 503 burst from the edge, a request that hangs). They sit in front of
everything else, so a canned reply is served without touching the model.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Receive, Scope, Send


@dataclass
class CannedReply:
    status: int
    body: bytes
    headers: dict[str, str]
    path_prefix: str
    remaining: int


@dataclass
class Stall:
    """Requests under `path_prefix` wait here until `release()` (or the venue closes)."""

    path_prefix: str
    released: asyncio.Event = field(default_factory=asyncio.Event)
    parked: int = 0

    def release(self) -> None:
        self.released.set()


class Faults:
    """The switchboard a test reaches through `app.state.venue.faults`."""

    def __init__(self) -> None:
        self._canned: list[CannedReply] = []
        self._stalls: list[Stall] = []
        self.seen: int = 0  # requests that reached the fault layer

    def respond_with(
        self,
        status: int,
        body: str | bytes = "",
        *,
        path_prefix: str = "/",
        times: int = 1,
        headers: dict[str, str] | None = None,
    ) -> CannedReply:
        """Answer the next `times` requests under `path_prefix` with this reply instead."""
        raw = body.encode("utf-8") if isinstance(body, str) else body
        canned = CannedReply(status, raw, dict(headers or {}), path_prefix, times)
        self._canned.append(canned)
        return canned

    def stall(self, path_prefix: str = "/") -> Stall:
        """Hold requests under `path_prefix` until the returned stall is released."""
        stall = Stall(path_prefix)
        self._stalls.append(stall)
        return stall

    def release_all(self) -> None:
        for stall in self._stalls:
            stall.release()
        self._stalls.clear()

    def clear(self) -> None:
        self._canned.clear()
        self.release_all()

    def _take_canned(self, path: str) -> CannedReply | None:
        for canned in self._canned:
            if path.startswith(canned.path_prefix) and canned.remaining > 0:
                canned.remaining -= 1
                if canned.remaining == 0:
                    self._canned.remove(canned)
                return canned
        return None

    def _stall_for(self, path: str) -> Stall | None:
        for stall in self._stalls:
            if path.startswith(stall.path_prefix) and not stall.released.is_set():
                return stall
        return None


class FaultMiddleware:
    """Applies `Faults` to every HTTP request before the app sees it."""

    def __init__(self, app: ASGIApp, faults: Faults) -> None:
        self.app = app
        self.faults = faults

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        faults = self.faults
        faults.seen += 1
        path = scope.get("path", "")
        stall = faults._stall_for(path)
        if stall is not None:
            stall.parked += 1
            try:
                await stall.released.wait()
            finally:
                stall.parked -= 1
        canned = faults._take_canned(path)
        if canned is None:
            await self.app(scope, receive, send)
            return
        headers = {"content-type": "text/plain; charset=utf-8", **canned.headers}
        headers["content-length"] = str(len(canned.body))
        await send(
            {
                "type": "http.response.start",
                "status": canned.status,
                "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
            }
        )
        await send({"type": "http.response.body", "body": canned.body})
