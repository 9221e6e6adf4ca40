"""Typed events the engine publishes; the faces subscribe and redraw, tests subscribe and assert.

Events carry ids and small facts, never secrets, so any subscriber may log them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import asyncio

VenueState = Literal[
    "connecting", "following", "polling", "reconnecting", "rate-limited", "gap-detected",
    "offline"
]
DangerLevel = Literal["calm", "soon", "danger", "past"]
NoticeLevel = Literal["info", "warning", "error"]


@dataclass(frozen=True, slots=True)
class BoardChanged:
    """Offers were added or changed status; `added`/`updated` are offer ids. `checking`, when
    set, is how many records of the ring are still being checked (0: all are)."""

    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    rejected: int = 0
    checking: int | None = None


@dataclass(frozen=True, slots=True)
class DealAdvanced:
    """A deal's folded state or transcript changed."""

    deal_id: str
    status: str
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class DeadlineWarning:
    """A deal entered a danger window; the operator decides, the engine only warns."""

    deal_id: str
    level: DangerLevel
    what: str
    ms_left: int


@dataclass(frozen=True, slots=True)
class VenueStatus:
    state: VenueState
    detail: str = ""

    @property
    def unreachable(self) -> bool:
        """The venue does not answer now (offline since the wallet opened, or the follower
        retrying after a failed read): what the board shows is only what was read before."""
        return self.state in ("offline", "reconnecting")


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the operator should read (a rejected line, a refused action, a recovery)."""

    level: NoticeLevel
    text: str
    deal_id: str | None = None


@dataclass(frozen=True, slots=True)
class Alert:
    """Something that needs the operator, raised once (journaled) even while no screen is
    attached: a payee's last safe moment to reveal, an approval waiting, a rail disagreement,
    or what the wallet did by itself (a refund)."""

    key: str
    kind: str
    text: str
    deal_id: str | None = None
    raised_ms: int = 0


Event = BoardChanged | DealAdvanced | DeadlineWarning | VenueStatus | Notice | Alert


class EventBus:
    """Fan-out of engine events to any number of async subscribers.

    Each subscriber has its own unbounded queue so a slow face never blocks the engine; the
    engine never awaits a subscriber.
    """

    def __init__(self) -> None:
        self._queues: list[asyncio.Queue[Event]] = []

    def publish(self, event: Event) -> None:
        for queue in list(self._queues):
            queue.put_nowait(event)

    def subscribe(self) -> asyncio.Queue[Event]:
        import asyncio  # here, not at the top: a CLI call reading views never needs it

        queue: asyncio.Queue[Event] = asyncio.Queue()
        self._queues.append(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[Event]) -> None:
        if queue in self._queues:
            self._queues.remove(queue)

    async def stream(self) -> AsyncIterator[Event]:
        queue = self.subscribe()
        try:
            while True:
                yield await queue.get()
        finally:
            self.unsubscribe(queue)
