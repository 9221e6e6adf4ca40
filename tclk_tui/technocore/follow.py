"""Following a room: a cursor, long-polls, and every irregularity surfaced as an event.

A follower never goes quiet about trouble. A ring gap (records dropped before they were read) is
a RingGap, after trying to fetch the missing records from the room's export; a room that was
reaped and recreated is an EpochChange; a long-poll refused a waiter slot is WaitNotHeld; a
failed request is a Backoff before the retry; a record that cannot be accepted is Rejected and
never reaches the caller as data. Only a caller error (a bad room name, a refused route) ends
the iteration, by raising.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tclk_tui.technocore.errors import RateLimited, VenueError, error_label
from tclk_tui.technocore.records import RoomView, VenueRecord
from tclk_tui.technocore.retry import RetryPolicy

if TYPE_CHECKING:
    from tclk_tui.technocore.client import VenueClient

ONE_SHOT = RetryPolicy(attempts=1, rate_limit_budget_s=0.0)
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RecordsEvent:
    """New records, oldest first. `own_did` is the follower's identity (None when anonymous)."""

    room: str
    records: tuple[VenueRecord, ...]
    cursor: int
    generation: int | None
    own_did: str | None = None
    recovered: bool = False

    @property
    def foreign(self) -> tuple[VenueRecord, ...]:
        """Records not written by this follower's own key (echo suppression by DID)."""
        return tuple(r for r in self.records if r.sender != self.own_did)

    @property
    def own(self) -> tuple[VenueRecord, ...]:
        return tuple(r for r in self.records if r.sender == self.own_did)


@dataclass(frozen=True, slots=True)
class RingGap:
    """Records `expected` .. `got - 1` were never read: the ring dropped them, or too many arrived
    between two reads. `recovered` of them were fetched from the export afterwards."""

    room: str
    expected: int
    got: int
    recovered: int = 0

    @property
    def lost(self) -> int:
        return self.got - self.expected - self.recovered


@dataclass(frozen=True, slots=True)
class EpochChange:
    """The room is a new lifetime: `old`/`new` are venue generations (None when unknown).

    `rewound` means seq went backwards (a venue that restarts seq on recreation); the cursor was
    reset and the new room is read from its start.
    """

    room: str
    old: int | None
    new: int | None
    rewound: bool = False


@dataclass(frozen=True, slots=True)
class WaitNotHeld:
    """The venue had no free waiter slot and answered at once; the follower sleeps first."""

    room: str
    retry_in_s: float


@dataclass(frozen=True, slots=True)
class Backoff:
    """A read failed with a retryable error; the follower waits `delay_s` and tries again."""

    room: str
    error: VenueError
    delay_s: float
    attempt: int


@dataclass(frozen=True, slots=True)
class Rejected:
    """A record (or raw item) the follower refused, with the reason. Never passed on as data."""

    room: str
    raw: object
    reason: str
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class Idle:
    """A long-poll came back empty after really waiting: the venue is up and the room quiet."""

    room: str
    cursor: int


FollowEvent = RecordsEvent | RingGap | EpochChange | WaitNotHeld | Backoff | Rejected | Idle


@dataclass
class RoomFollower:
    """Async iterator of FollowEvents for one room. `cursor` and `generation` are always current,
    so a caller can persist them after each event and resume with `client.follow(room, cursor)`.

    `since=None` starts with the room's newest `limit` records; an integer resumes after it.
    """

    client: VenueClient
    room: str
    cursor: int | None = None
    wait_s: float = 10.0
    limit: int = 200
    suppress_echoes: bool = False
    recover_gaps: bool = True
    epoch_probe_every: int = 6
    generation: int | None = None
    idle_pause_s: float = 0.5
    _failures: int = field(default=0, repr=False)
    _quiet_polls: int = field(default=0, repr=False)
    _first: bool = field(default=True, repr=False)
    pause_s: float = field(default=0.0, repr=False)

    def __aiter__(self) -> AsyncIterator[FollowEvent]:
        return self._run()

    async def _run(self) -> AsyncIterator[FollowEvent]:
        while True:
            events = await self.step()
            for event in events:
                yield event
            if self.pause_s > 0:
                await self.client.retry.sleep(self.pause_s)

    async def step(self, wait_s: float | None = None) -> list[FollowEvent]:
        """One read and what it brought. `pause_s` is then how long to sleep before the next
        read (a Backoff's delay, a refused wait's pause); the iterator sleeps it, a scheduler
        may decide otherwise. `wait_s` overrides the follower's wait for this one read (0: a
        plain read), so a scheduler can choose, read by read, which rooms hold a waiting read.

        The first read never waits, so a resumed follower catches up (and sees a rewind or a
        gap) at once instead of after a quiet long-poll.
        """
        policy = self.client.retry
        wait = self.wait_s if wait_s is None else wait_s
        waiting = self.cursor is not None and wait > 0 and not self._first
        self.pause_s = 0.0
        try:
            view = await self.client.read(
                self.room,
                since=self.cursor,
                limit=self.limit,
                wait=wait if waiting else None,
                retry=ONE_SHOT,
            )
        except VenueError as error:
            if not error.retryable:
                raise
            delay = (
                error.wait_s if isinstance(error, RateLimited)
                else policy.backoff(self._failures)
            )
            self._failures += 1
            self.pause_s = delay
            log.log(logging.WARNING if isinstance(error, RateLimited) else logging.INFO,
                    "follow %s: %s; reading again in %.2f s (failure %d in a row)",
                    self.room, error_label(error), delay, self._failures)
            return [Backoff(self.room, error, delay, self._failures)]
        self._failures = 0
        self._first = False
        events = await self._absorb(view, waited=waiting)
        if view.wait_held is False and not view.records:
            log.info("follow %s: the venue held no long-poll (no free waiter slot): "
                     "reading again in %g s", self.room, self.wait_s)
            events.append(WaitNotHeld(self.room, self.wait_s))
            self.pause_s = self.wait_s
        elif waiting and view.wait_held is None and not view.records and not view.malformed:
            # A venue that does not say whether it held the wait cannot be told apart from
            # one answering at once; a short pause keeps a quiet room from becoming a
            # tight request loop.
            self.pause_s = self.idle_pause_s
        return events

    async def _absorb(self, view: RoomView, *, waited: bool) -> list[FollowEvent]:
        events: list[FollowEvent] = [
            Rejected(self.room, bad.raw, bad.reason, bad.seq) for bad in view.malformed
        ]
        old_generation = self.generation
        if view.generation is not None:
            self.generation = view.generation
        cursor = self.cursor
        if cursor is not None and view.last_seq < cursor:
            events.append(EpochChange(self.room, old_generation, view.generation, rewound=True))
            self.cursor = 0
            self._quiet_polls = 0
            return events
        if (
            old_generation is not None
            and old_generation > 0
            and view.generation is not None
            and view.generation != old_generation
        ):
            events.append(EpochChange(self.room, old_generation, view.generation))
        if cursor is not None:
            got = view.first_seq if view.first_seq is not None else view.last_seq + 1
            if got > cursor + 1:
                events.extend(await self._gap(cursor + 1, got, view.generation))
        if view.records:
            records = view.records
            if self.suppress_echoes and self.client.did is not None:
                records = tuple(r for r in records if r.sender != self.client.did)
            if records:
                events.append(
                    RecordsEvent(self.room, records, view.last_seq, view.generation,
                                 self.client.did)
                )
        self.cursor = max(view.last_seq, cursor or 0)
        if view.records or view.malformed:
            self._quiet_polls = 0
        elif waited and view.wait_held is not False:
            events.append(Idle(self.room, self.cursor))
            self._quiet_polls += 1
            if view.generation is None and self._quiet_polls >= self.epoch_probe_every:
                self._quiet_polls = 0
                events.extend(await self._probe_epoch())
        return events

    async def _gap(self, expected: int, got: int, generation: int | None) -> list[FollowEvent]:
        """Fetch what the export still holds of a gap; report whatever stays missing."""
        recovered: tuple[VenueRecord, ...] = ()
        events: list[FollowEvent] = []
        if self.recover_gaps:
            try:
                export = await self.client.export(self.room, retry=ONE_SHOT)
            except VenueError:
                export = None
            if export is not None and (
                generation is None or export.generation in (None, generation)
            ):
                recovered = tuple(r for r in export.records if expected <= r.seq < got)
                events.extend(
                    Rejected(self.room, bad.raw, bad.reason, bad.seq)
                    for bad in export.malformed
                    if bad.seq is not None and expected <= bad.seq < got
                )
        if len(recovered) < got - expected:
            events.append(RingGap(self.room, expected, got, len(recovered)))
        if recovered:
            if self.suppress_echoes and self.client.did is not None:
                recovered = tuple(r for r in recovered if r.sender != self.client.did)
            if recovered:
                events.append(
                    RecordsEvent(self.room, recovered, recovered[-1].seq, generation,
                                 self.client.did, recovered=True)
                )
        return events

    async def _probe_epoch(self) -> list[FollowEvent]:
        """A cursor-free read: the only way to see a seq rewind on a venue without generations,
        since a `since=` poll echoes the cursor back when nothing is newer."""
        try:
            tail = await self.client.read(self.room, limit=1, retry=ONE_SHOT)
        except VenueError:
            return []
        if self.cursor is not None and tail.last_seq < self.cursor:
            self.cursor = 0
            return [EpochChange(self.room, self.generation, tail.generation, rewound=True)]
        return []
