"""The client's budget checks: what this wallet's share of the venue's budgets allows before a
request, and what a reply teaches it after.

The buckets themselves (`budget.VenueBudget`) are spent per attempt by the transport; these are
the decisions above one request: whether a long-poll may hold one of the address's few waiters,
whether a write that would create a room fits the new-room budget (a room that already exists
costs none, so it is read first), and which rooms a reply proves to exist. Their own object so
the reads and the signed writes ask one place, and a client without a budget (None) is one
check, not one per call site.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable
from typing import Protocol

from tclk_tui.technocore.budget import RoomBudgetSpent, VenueBudget
from tclk_tui.technocore.records import RoomView, VenueRecord
from tclk_tui.technocore.transport import VenueTransport

__all__ = ["BudgetChecks", "RoomReader"]


class RoomReader(Protocol):
    """The client's own read, the one every read goes through (so a read counted or replaced
    there is counted everywhere)."""

    def read(self, room: str, since: int | None = None, limit: int | None = None,
             wait: float | None = None) -> Awaitable[RoomView]: ...


class BudgetChecks:
    """Budget decisions for one client; every one reads the transport's budget as it is now
    (None: this client counts nothing)."""

    def __init__(self, transport: VenueTransport, rooms: RoomReader) -> None:
        self._transport = transport
        self._rooms = rooms

    @property
    def budget(self) -> VenueBudget | None:
        return self._transport.budget

    # -- reads ----------------------------------------------------------------------------

    def take_waiter(self) -> bool:
        """Whether a long-poll may hold one of this wallet's waiters now (a plain read if not)."""
        budget = self.budget
        return budget is None or budget.take_waiter()

    def release_waiter(self) -> None:
        budget = self.budget
        if budget is not None:
            budget.release_waiter()

    def read_seen(self, room: str, view: RoomView, since: int | None, waited: bool,
                  held: bool) -> RoomView:
        """What a read proves (the room exists when it shows a line), and the view as the
        venue would have answered: a wait this wallet could not hold answers as not held."""
        budget = self.budget
        if budget is None:
            return view
        if view.records or view.last_seq > (since or 0):
            budget.room_exists(room)
        if waited and not held and not view.records:
            # This wallet's waiters are all in use: a plain read answered, as the venue
            # answers a wait it cannot hold.
            view = dataclasses.replace(view, wait_held=False)
        return view

    def export_seen(self, room: str, body: bytes) -> None:
        if self.budget is not None and body.strip():
            self.budget.room_exists(room)  # a line in its ring, kept or not: it was created

    # -- writes ---------------------------------------------------------------------------

    async def before_write(self, room: str) -> None:
        """Refuse, before anything is signed, a write that would create a room this wallet's
        share of the new-room budget cannot pay for (the venue would refuse it for a day)."""
        budget = self.budget
        if budget is None or room in budget.known_rooms or budget.rooms_left() >= 1:
            return
        await self._rooms.read(room, limit=1)  # it may exist already: then writing costs no room
        if room in budget.known_rooms:
            return
        why = budget.rooms_sentence(1)
        raise RoomBudgetSpent(f"post /r/{room}: not sent: /r/{room} does not exist yet and "
                              f"writing would create it, but {why}",
                              free_in_s=budget.room_free_in_s(1))

    def after_write(self, room: str, posted: VenueRecord | None) -> None:
        budget = self.budget
        if budget is None:
            return
        if posted is not None and posted.seq != 1:
            budget.room_exists(room)
        elif posted is not None:
            # Seq 1: this write made the room, and the venue charged it to us, even if one of
            # our reads saw the new room between the post landing and this answer.
            budget.room_created(room)
        elif room not in budget.known_rooms:
            budget.room_created(room)  # unknown: assume this write made it
