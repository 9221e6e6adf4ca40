"""Long-poll readers parked on a room, woken by the append that stores a line.

One wait point per room name, replaced on every append, so delivery costs no polling. Its own
object because it is the only part of the venue model that awaits anything: the rooms and the
write rules stay plain synchronous code, atomic on the event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["WaitPoints"]


@dataclass
class _WaitPoint:
    """Where readers parked on one room name wait; replaced on every append."""

    event: asyncio.Event = field(default_factory=asyncio.Event)
    waiters: int = 0


class WaitPoints:
    """The parked readers of every room."""

    def __init__(self, view: Callable[[str, int | None, int | None], dict[str, Any]],
                 closed: Callable[[], bool]) -> None:
        self._view = view
        self._closed = closed
        self._points: dict[str, _WaitPoint] = {}

    def waiting(self, room: str) -> int:
        """How many long-poll readers are parked on `room` right now."""
        point = self._points.get(room)
        return 0 if point is None else point.waiters

    async def wait_for(
        self,
        room: str,
        since: int,
        limit: int,
        timeout: float,
        disconnected: Awaitable[Any] | None = None,
    ) -> dict[str, Any] | None:
        """A view with news after `since`, as soon as a line lands; None on timeout.

        Woken by the append itself (one event per room name, replaced on every append), so
        delivery costs no polling. Returns early, with None, when the reader hangs up or the
        venue closes.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        point = self._points.setdefault(room, _WaitPoint())
        point.waiters += 1
        hangup = asyncio.ensure_future(disconnected) if disconnected is not None else None
        woken: asyncio.Future[Any] | None = None
        try:
            while not self._closed():
                event = point.event
                fresh = self._view(room, since, limit)
                if fresh["messages"]:
                    return fresh
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return None
                woken = asyncio.ensure_future(event.wait())
                pending: set[asyncio.Future[Any]] = {woken}
                if hangup is not None:
                    pending.add(hangup)
                done, _ = await asyncio.wait(
                    pending, timeout=remaining, return_when=asyncio.FIRST_COMPLETED
                )
                if hangup is not None and hangup in done:
                    return None
            return None
        finally:
            for pending_future in (woken, hangup):
                if pending_future is not None and not pending_future.done():
                    pending_future.cancel()
            point.waiters -= 1
            if point.waiters == 0 and self._points.get(room) is point:
                del self._points[room]

    def wake(self, room: str) -> None:
        point = self._points.get(room)
        if point is not None:
            point.event.set()
            point.event = asyncio.Event()

    def wake_all(self) -> None:
        for point in self._points.values():
            point.event.set()
