"""Reads are scheduled, not spawned: one scheduler per wallet over its venue client.

Every room the wallet follows (the board, its mailboxes, sealed channels, deal rooms, the
agents' mailbox) is registered here with a way to say how much it wants to be read now
(`Want`), and they all share the venue budget's few waiting reads and its reads a minute:

- `STANDING` and `HOT` rooms (a caller may write at any moment; the wallet waits for the
  counterparty's next move, or a deadline is near) take the waiting reads first, so what lands
  there is seen at once; a `LIVE` room takes one only while no hotter room needs it, and gives it
  up (the long-poll is cancelled) when one does.
- Every other room is read plainly on a schedule: every second while a `HOT` room has just
  changed (the answer to our move is due), every few seconds while it stays hot, every
  `LIVE_PERIOD_S` when `LIVE`, every `IDLE_PERIOD_S` when `IDLE`. When the budget cannot pay for
  all of that, the most overdue room (relative to its period) goes first, so the schedule
  stretches evenly instead of starving anyone; following reads never dip into the quarter of
  the bucket kept for deal-critical traffic.
- A `DROP` room is no longer read at all (a settled deal whose receipts are in).

Each room is also capped on its own (`ROOM_SHARE` of the wallet's reads a minute): a stranger
writing into a room without pause makes its waiting read come back at once, and without the cap
that room alone would spend the wallet's whole budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tclk_tui.technocore.budget import Bucket, Traffic, VenueBudget, traffic
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import VenueError
from tclk_tui.technocore.follow import FollowEvent, RoomFollower, WaitNotHeld


class Want(enum.IntEnum):
    DROP = 0
    IDLE = 1
    LIVE = 2
    HOT = 3
    STANDING = 4


HOT_PERIOD_S = 3.0
FRESH_PERIOD_S = 1.0  # a hot room that changed within FRESH_S: its answer is due any moment
FRESH_S = 5.0
LIVE_PERIOD_S = 15.0
IDLE_PERIOD_S = 60.0
PERIOD_S = {Want.IDLE: IDLE_PERIOD_S, Want.LIVE: LIVE_PERIOD_S, Want.HOT: HOT_PERIOD_S,
            Want.STANDING: HOT_PERIOD_S}
ROOM_SHARE = 0.5  # the most of the wallet's reads a minute one room may take
STANDING_SHARE = 0.75
ROOM_BURST = 10.0
NOT_HELD_PAUSE_S = 10.0  # a waiter the venue would not hold: one fewer for this long
PREEMPT_AGE_S = 4.0

Handler = Callable[[list[FollowEvent]], Awaitable[None]]
WantOf = Callable[[float], Want]  # seconds since the room last changed -> how much it wants


@dataclass(eq=False)
class _Room:
    name: str
    follower: RoomFollower
    handler: Handler
    want_of: WantOf
    changed_at: float
    reads: Bucket
    want: Want = Want.LIVE
    last_read: float = -math.inf
    waiter: asyncio.Task[None] | None = field(default=None, repr=False)
    in_handler: bool = False  # its batch is being folded in: never cancelled there
    busy: bool = False  # a read of this room is in progress


@dataclass(frozen=True, slots=True)
class FollowedRoom:
    """One followed room as the venue status shows it."""

    room: str
    want: str
    waiting: bool
    period_s: float


class ReadScheduler:
    """The wallet's one reader of the venue (see the module docstring)."""

    def __init__(self, client: VenueClient, *, closed: Callable[[], bool],
                 on_error: Callable[[str, Exception], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self.budget: VenueBudget = client.budget or VenueBudget(share=1)
        self._closed = closed
        self._on_error = on_error
        self._clock = clock
        self._rooms: dict[str, _Room] = {}
        self._kick = asyncio.Event()
        self._not_held_until = -math.inf
        self.dropped = 0  # rooms no longer followed since this wallet opened

    # -- registering rooms -------------------------------------------------------------------

    def add(self, room: str, *, handler: Handler, want: WantOf, since: int | None,
            generation: int | None = None, suppress_echoes: bool = False,
            standing: bool = False) -> bool:
        """Follow `room` from `since` (None: its newest records) unless it is followed
        already or says it wants nothing; True when it is followed now."""
        if room in self._rooms:
            return True
        if want(0.0) == Want.DROP:
            return False
        follower = self.client.follow(room, since=since, generation=generation,
                                      suppress_echoes=suppress_echoes,
                                      wait_s=self.budget.limits.max_wait_s)
        per_min = self.budget.reads.capacity * (STANDING_SHARE if standing else ROOM_SHARE)
        now = self._clock()
        self._rooms[room] = _Room(room, follower, handler, want, now,
                                  Bucket(ROOM_BURST, per_min / 60.0, now))
        self.kick()
        return True

    def drop(self, room: str) -> None:
        entry = self._rooms.pop(room, None)
        if entry is not None:
            self.dropped += 1
            if entry.waiter is not None and not entry.in_handler:
                entry.waiter.cancel()  # else it ends by itself once its batch is handed over
            self.kick()

    def touch(self, room: str) -> None:
        """Something happened in `room` that makes the next move there likely soon (our own
        line was just posted, the deal's state changed): read it eagerly again."""
        entry = self._rooms.get(room)
        if entry is not None:
            entry.changed_at = self._clock()
            self.kick()

    def kick(self) -> None:
        """Look at the rooms again now (a deal's state changed, a room was added)."""
        self._kick.set()

    def following(self, room: str) -> bool:
        return room in self._rooms

    def rooms(self) -> list[FollowedRoom]:
        return [FollowedRoom(e.name, e.want.name.lower(), e.waiter is not None,
                             PERIOD_S.get(e.want, 0.0)) for e in self._rooms.values()]

    # -- the loop ------------------------------------------------------------------------------

    async def run(self) -> None:
        """Read the rooms until the wallet closes; waiting reads run beside this loop."""
        with traffic("follow"):
            try:
                while not self._closed():
                    delay = await self._round()
                    if delay > 0:
                        self._kick.clear()
                        with contextlib.suppress(TimeoutError):
                            async with asyncio.timeout(delay):
                                await self._kick.wait()
            finally:
                waiters = [e.waiter for e in self._rooms.values() if e.waiter is not None]
                for waiter in waiters:
                    waiter.cancel()
                await asyncio.gather(*waiters, return_exceptions=True)

    async def _round(self) -> float:
        """One look at every room: drop, hand out waiting reads, do the most overdue plain
        read. Returns how long to sleep (0: look again at once)."""
        now = self._clock()
        for entry in list(self._rooms.values()):
            try:
                entry.want = entry.want_of(now - entry.changed_at)
            except Exception as exc:  # a rule that fails must not stop every room's reads
                self._on_error(entry.name, exc)
                entry.want = Want.LIVE
            if entry.want == Want.DROP:
                self.drop(entry.name)
        self._hand_out_waiters()
        due, due_in = self._most_overdue(now)
        if due is None:
            return min(due_in, 30.0)
        budget_wait = self.budget.seconds_until_available("read", "follow")
        room_wait = due.reads.seconds_until(now, 1.0)
        if budget_wait > 0 or room_wait > 0:
            return max(min(max(budget_wait, room_wait), 5.0), 0.05)
        await self._read(due, wait_s=0.0)
        return 0.0

    def _most_overdue(self, now: float) -> tuple[_Room | None, float]:
        """The plainly read room furthest past its period (and how long until the next one
        is due, when none is)."""
        best: _Room | None = None
        best_ratio = -math.inf
        soonest = math.inf
        for entry in self._rooms.values():
            if entry.waiter is not None or entry.busy:
                continue
            period = PERIOD_S[entry.want]
            if entry.want >= Want.HOT and now - entry.changed_at < FRESH_S:
                period = FRESH_PERIOD_S
            since = now - entry.last_read
            if since < period:
                soonest = min(soonest, period - since)
                continue
            ratio = since / period
            if ratio > best_ratio:
                best, best_ratio = entry, ratio
        return best, 0.0 if best is not None else soonest

    def _waiters(self) -> int:
        held = self.budget.waiters
        if self._clock() < self._not_held_until:
            held -= 1  # the venue would not hold one: someone else on this address uses more
        return max(0, held)

    def _hand_out_waiters(self) -> None:
        """The top rooms (STANDING, then HOT, then LIVE by how recently each changed) hold
        the waiting reads; a LIVE room gives its up when a hotter one needs it."""
        ranked = sorted((e for e in self._rooms.values() if e.want >= Want.LIVE),
                        key=lambda e: (e.want, e.changed_at), reverse=True)
        chosen = ranked[:self._waiters()]
        holders = [e for e in self._rooms.values() if e.waiter is not None]
        free = self._waiters() - len(holders)
        for entry in chosen:
            if entry.waiter is not None:
                continue
            if free <= 0:
                victim = min((h for h in holders if h not in chosen and not h.in_handler
                              and (h.want < entry.want or self._staler(h, entry))),
                             key=lambda h: (h.want, h.changed_at), default=None)
                if victim is None or victim.waiter is None:
                    continue
                victim.waiter.cancel()  # its long-poll ends; the venue frees the slot
                holders.remove(victim)
                free += 1
            free -= 1
            entry.waiter = asyncio.create_task(self._wait_loop(entry))
            holders.append(entry)

    @staticmethod
    def _staler(holder: _Room, entry: _Room) -> bool:
        """A hot room whose move has been awaited a while gives its waiting read to one that
        just changed (its answer is the likelier next): bounded churn, one per PREEMPT_AGE_S."""
        return (holder.want == entry.want == Want.HOT
                and entry.changed_at - holder.changed_at >= PREEMPT_AGE_S)

    async def _wait_loop(self, entry: _Room) -> None:
        """Hold a waiting read on the room while it keeps its rank."""
        slot_tries = 0
        try:
            while (not self._closed() and self._rooms.get(entry.name) is entry
                   and self._keeps_waiter(entry)):
                now = self._clock()
                klass: Traffic = "urgent" if entry.want >= Want.HOT else "follow"
                wait = max(self.budget.seconds_until_available("read", klass),
                           entry.reads.seconds_until(now, 1.0))
                if self.budget.waiters_in_use >= self.budget.waiters:
                    # A cancelled long-poll has not given its slot back yet (or something
                    # else on this client holds one): wait a moment, then give up the turn.
                    slot_tries += 1
                    if slot_tries > 20:
                        self._not_held_until = now + NOT_HELD_PAUSE_S
                        return
                    wait = max(wait, 0.05)
                if wait > 0:
                    await asyncio.sleep(min(wait, 1.0))
                    continue
                with traffic(klass):
                    events = await self._read(entry, wait_s=self.budget.limits.max_wait_s)
                if any(isinstance(e, WaitNotHeld) for e in events):
                    self._not_held_until = self._clock() + NOT_HELD_PAUSE_S
                    return
                if entry.follower.pause_s > 0:
                    await asyncio.sleep(min(entry.follower.pause_s, 5.0))
        except asyncio.CancelledError:
            pass
        finally:
            entry.waiter = None
            self.kick()

    def _keeps_waiter(self, entry: _Room) -> bool:
        ranked = sorted((e for e in self._rooms.values() if e.want >= Want.LIVE),
                        key=lambda e: (e.want, e.changed_at), reverse=True)
        return entry in ranked[:self._waiters()]

    async def _read(self, entry: _Room, *, wait_s: float) -> list[FollowEvent]:
        """One read of the room and its events handed over; a batch the handler could not
        take is read again (the follower's cursor goes back)."""
        follower = entry.follower
        before = (follower.cursor, follower.generation)
        entry.busy = True
        entry.reads.spend(self._clock())
        try:
            events = await follower.step(wait_s=wait_s)
            entry.last_read = self._clock()
            if any(getattr(e, "records", None) for e in events):
                entry.changed_at = entry.last_read
            entry.in_handler = True
            try:
                with traffic("critical"):  # what a read brings may need the venue at once
                    await entry.handler(events)
            except asyncio.CancelledError:
                follower.cursor, follower.generation = before
                raise
            except Exception as exc:
                follower.cursor, follower.generation = before
                self._on_error(entry.name, exc)
            finally:
                entry.in_handler = False
            return events
        except VenueError as exc:  # not retryable: a refused route, a bad name
            entry.last_read = self._clock()
            self._on_error(entry.name, exc)
            return []
        finally:
            entry.busy = False


__all__ = ["FollowedRoom", "ReadScheduler", "Want"]
