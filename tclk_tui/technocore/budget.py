"""The venue's per-address budgets, kept on this side so the wallet never spends past them.

The venue holds, per client address, a few waiting reads (long-polls) and token buckets of
reads and writes a minute and of new rooms a day (`/config`: `max_waiters_per_ip`,
`rate_read`, `rate_write`, `rate_rooms_per_day`). Every wallet on one host shares one address,
so each takes a share: with `share` wallets (2 by default: the demo and its counterparty, or a
daemon and a CLI call beside it) each holds `1/share` of every bucket and of the waiters.

The buckets here mirror the venue's (continuous refill, the same capacities) and are spent per
request, before it is sent. Who may spend is the traffic class of the task sending it
(`traffic(...)`): deal-critical traffic (a lock, a reveal, the reads an action needs) may spend
the whole share and is never made to wait by the rest; following reads keep a quarter of the
read bucket for it, optional traffic (heartbeats, the DID note, capability look-ups) half of the
reads and a third of the writes.
What the venue says about the address as a whole (a `# budget:` footer, a 429) only ever lowers
what is believed left.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal

from tclk_tui.technocore.errors import VenueError

log = logging.getLogger("tclk_tui.technocore.client")  # the client's story, one name

Traffic = Literal["critical", "urgent", "follow", "optional"]
BudgetKind = Literal["read", "write"]

# The manual's defaults, used until (or unless) `/config` says otherwise.
DEFAULT_WAITERS = 4
DEFAULT_READS = 120
DEFAULT_WRITES = 30
DEFAULT_ROOMS = 20
DEFAULT_MAX_WAIT_S = 10.0
DEFAULT_SHARE = 2
MAX_SHARE = 64

# The part of a bucket each class leaves for the classes above it.
# "urgent" is a waiting read where the next move is expected at once: it leaves a tenth.
RESERVE: dict[Traffic, float] = {"critical": 0.0, "urgent": 0.1, "follow": 0.25,
                                 "optional": 0.5}
WRITE_RESERVE: dict[Traffic, float] = {"critical": 0.0, "urgent": 0.0, "follow": 0.0,
                                       "optional": 1 / 3}
OPTIONAL_WRITE_PATIENCE_S = 15.0  # how long a heartbeat waits for its turn before it is kept

_TRAFFIC: ContextVar[Traffic] = ContextVar("tclk_venue_traffic", default="critical")
_FOOTER_RE = re.compile(rb"# budget: (\d{1,9}) of (\d{1,9}) (reads|writes) left")


@contextlib.contextmanager
def traffic(kind: Traffic) -> Iterator[None]:
    """Every venue request made inside the block (tasks started inside it too) is `kind`."""
    token = _TRAFFIC.set(kind)
    try:
        yield
    finally:
        _TRAFFIC.reset(token)


def current_traffic() -> Traffic:
    return _TRAFFIC.get()


class BudgetKept(VenueError):
    """An optional request refused here, unsent: what is left is kept for deal moves."""

    def __init__(self, message: str, *, free_in_s: float) -> None:
        super().__init__(message)
        self.free_in_s = free_in_s


class RoomBudgetSpent(VenueError):
    """A write that would create a room the new-room budget cannot pay for, refused unsent."""

    def __init__(self, message: str, *, free_in_s: float) -> None:
        super().__init__(message)
        self.free_in_s = free_in_s


def _positive_int(value: Any, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**7:
        return default
    return value


@dataclass(frozen=True, slots=True)
class VenueLimits:
    """The per-address limits of one venue (the manual's defaults unless `/config` said)."""

    waiters: int = DEFAULT_WAITERS
    reads_per_min: int = DEFAULT_READS
    writes_per_min: int = DEFAULT_WRITES
    rooms_per_day: int = DEFAULT_ROOMS
    max_wait_s: float = DEFAULT_MAX_WAIT_S
    source: str = "the manual's defaults"

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> VenueLimits:
        """From `/config`'s settings; a missing or nonsensical value keeps the default (a
        stranger's proxy may answer anything, and a bad number must never lift a limit)."""
        wait = settings.get("max_wait")
        max_wait = (float(wait) if isinstance(wait, int | float) and not isinstance(wait, bool)
                    and math.isfinite(wait) and 0 < wait <= 60 else DEFAULT_MAX_WAIT_S)
        return cls(waiters=_positive_int(settings.get("max_waiters_per_ip"), DEFAULT_WAITERS),
                   reads_per_min=_positive_int(settings.get("rate_read"), DEFAULT_READS),
                   writes_per_min=_positive_int(settings.get("rate_write"), DEFAULT_WRITES),
                   rooms_per_day=_positive_int(settings.get("rate_rooms_per_day"),
                                               DEFAULT_ROOMS),
                   max_wait_s=max_wait, source="the venue's /config")


class Bucket:
    """A token bucket like the venue's: refills continuously up to `capacity`. Its level may go
    below zero (critical traffic spends on credit; a 429 says how long until a token is back)."""

    def __init__(self, capacity: float, per_s: float, now: float,
                 level: float | None = None) -> None:
        self.capacity = capacity
        self.per_s = per_s
        self._level = capacity if level is None else min(capacity, level)
        self._stamp = now

    def level(self, now: float) -> float:
        if now > self._stamp:
            self._level = min(self.capacity, self._level + (now - self._stamp) * self.per_s)
            self._stamp = now
        return self._level

    def spend(self, now: float, tokens: float = 1.0) -> None:
        # Never believed below one bucket owed: a long 429 wait is the venue's to enforce.
        self._level = max(self.level(now) - tokens, -self.capacity)

    def give_back(self, now: float) -> None:
        self._level = min(self.capacity, self.level(now) + 1.0)

    def at_most(self, now: float, level: float) -> None:
        self._level = min(self.level(now), level)

    def seconds_until(self, now: float, level: float) -> float:
        """How long until the bucket holds `level` (0 when it does already)."""
        missing = level - self.level(now)
        if missing <= 0:
            return 0.0
        return missing / self.per_s if self.per_s > 0 else math.inf


@dataclass(frozen=True, slots=True)
class BudgetView:
    """What the operator sees of the venue's budgets: this wallet's share, and what is left."""

    share: int
    source: str
    waiters_in_use: int
    waiters: int
    waiters_per_address: int
    reads_left: int
    reads_per_min: int
    writes_left: int
    writes_per_min: int
    rooms_left: int
    rooms_per_day: int
    room_free_in_s: int  # 0 when a room is left now


class VenueBudget:
    """One wallet's share of one venue address's budgets (see the module docstring).

    `clock` (monotonic seconds) paces reads, writes and waiters; `wall` (epoch seconds) the
    new-room bucket, which outlives a process: `rooms_state` restores it and `on_rooms` is told
    each change, so a restart does not believe a spent day is new.
    """

    def __init__(self, limits: VenueLimits | None = None, *, share: int = DEFAULT_SHARE,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time,
                 rooms_state: tuple[float, float] | None = None,
                 on_rooms: Callable[[float, float], None] | None = None) -> None:
        if isinstance(share, bool) or not isinstance(share, int) or not 1 <= share <= MAX_SHARE:
            raise ValueError(f"the venue share is a whole number of wallets, 1..{MAX_SHARE}")
        self.share = share
        self._clock = clock
        self._wall = wall
        self._on_rooms = on_rooms
        self.waiters_in_use = 0
        self.optional_patience_s = OPTIONAL_WRITE_PATIENCE_S
        self._write_turns: dict[str, asyncio.Lock] = {}
        self._rooms_state = rooms_state
        self.known_rooms: set[str] = set()
        self.limits = limits or VenueLimits()
        self._build(self.limits)

    def _build(self, limits: VenueLimits) -> None:
        now = self._clock()
        self.waiters = max(1, limits.waiters // self.share)
        self.reads = Bucket(limits.reads_per_min / self.share, limits.reads_per_min
                            / self.share / 60.0, now)
        self.writes = Bucket(limits.writes_per_min / self.share, limits.writes_per_min
                             / self.share / 60.0, now)
        rooms_cap = limits.rooms_per_day / self.share
        level, stamp = self._rooms_state if self._rooms_state is not None else (None, None)
        self.rooms = Bucket(rooms_cap, rooms_cap / 86400.0,
                            stamp if stamp is not None else self._wall(), level)

    def adopt(self, limits: VenueLimits) -> None:
        """Take the venue's own numbers (from `/config`); what was spent stays spent."""
        now, wall = self._clock(), self._wall()
        spent = {name: bucket.capacity - bucket.level(t) for name, bucket, t in
                 (("reads", self.reads, now), ("writes", self.writes, now),
                  ("rooms", self.rooms, wall))}
        self._rooms_state = None
        self.limits = limits
        self._build(limits)
        for name, t in (("reads", now), ("writes", now), ("rooms", wall)):
            bucket: Bucket = getattr(self, name)
            bucket.at_most(t, bucket.capacity - spent[name])
        self._rooms_changed()

    # -- reads and writes --------------------------------------------------------------------

    def _bucket(self, kind: BudgetKind) -> Bucket:
        return self.reads if kind == "read" else self.writes

    def floor(self, kind: BudgetKind, klass: Traffic) -> float:
        reserve = RESERVE if kind == "read" else WRITE_RESERVE
        return self._bucket(kind).capacity * reserve[klass]

    def available(self, kind: BudgetKind, klass: Traffic | None = None) -> bool:
        """Whether `klass` (the current task's, by default) may spend one token now."""
        klass = klass or current_traffic()
        return self._bucket(kind).level(self._clock()) >= self.floor(kind, klass) + 1.25

    def seconds_until_available(self, kind: BudgetKind, klass: Traffic) -> float:
        return self._bucket(kind).seconds_until(self._clock(), self.floor(kind, klass) + 1.25)

    async def spend(self, kind: BudgetKind, what: str, *, order: str = "") -> None:
        """Spend one token for a request about to be sent, waiting (or refusing) as its class
        must. Critical traffic (a deal move, the reads an action needs) waits only when this
        wallet's whole share is spent, since the other classes leave it a reserve; so the
        share is never exceeded, and with every wallet on the address keeping to its share the
        venue never has to refuse one.

        Writes to one room (`order`) take their turn first come, first served: a room's signed
        lines carry nonces in the order they were allocated, and a later nonce sent first would
        refuse the earlier one. Writes to different rooms do not queue behind each other."""
        klass = current_traffic()
        if klass == "optional" and kind == "write":
            kept = await self.optional_write_turn()
            if kept is not None:
                log.info("%s: kept back: %s", what, kept)
                raise BudgetKept(f"{what}: not sent: {kept}",
                                 free_in_s=self.seconds_until_available(kind, klass))
        if kind == "write":
            turn = self._write_turns.get(order)
            if turn is None:
                if len(self._write_turns) > 256:  # forget the turns nobody waits on
                    self._write_turns = {k: t for k, t in self._write_turns.items()
                                         if t.locked()}
                turn = self._write_turns[order] = asyncio.Lock()
            async with turn:
                await self._wait_for_token(kind, klass, what)
        else:
            await self._wait_for_token(kind, klass, what)

    async def _wait_for_token(self, kind: BudgetKind, klass: Traffic, what: str) -> None:
        bucket = self._bucket(kind)
        # A quarter token more than one: the venue's bucket is stamped when a request
        # arrives, a little after it was counted here.
        floor = self.floor(kind, klass) + 1.25
        waited = False
        while True:
            wait = bucket.seconds_until(self._clock(), floor)
            if wait <= 0:
                break
            if not waited:  # once per request: the decision, not every tick of the wait
                log.info("%s: waiting %.1f s for a %s token (%s traffic keeps to its share)",
                         what, wait, kind, klass)
                waited = True
            await asyncio.sleep(min(wait, 5.0))
        bucket.spend(self._clock())

    async def optional_write_turn(self) -> str | None:
        """Wait (a while) until an optional write may go: None then, else why it may not."""
        start = self._clock()
        while True:
            wait = self.seconds_until_available("write", "optional")
            if wait <= 0:
                return None
            left = self.optional_patience_s - (self._clock() - start)
            if wait > left:
                return self.kept_reason()
            await asyncio.sleep(min(wait, 1.0))

    def kept_reason(self) -> str | None:
        """Why an optional write cannot go now (None: it can)."""
        wait = self.seconds_until_available("write", "optional")
        if wait <= 0:
            return None
        return (f"{self._left('write')} of this wallet's {self._per_min('write')} writes a "
                "minute are left and are kept for deal moves (lock, reveal, refund); one is "
                f"free for this in {math.ceil(wait)} s")

    def _left(self, kind: BudgetKind) -> int:
        return max(0, math.floor(self._bucket(kind).level(self._clock())))

    def _per_min(self, kind: BudgetKind) -> int:
        return math.floor(self._bucket(kind).capacity)

    def refund(self, kind: BudgetKind) -> None:
        """A token spent for a request that never reached the venue."""
        self._bucket(kind).give_back(self._clock())

    def observe(self, kind: BudgetKind, left_for_address: int) -> None:
        """The venue said how many the whole address has left: never believe more."""
        self._bucket(kind).at_most(self._clock(), float(left_for_address))

    def observe_reply(self, body: bytes) -> None:
        """A text reply's `# budget: N of M reads|writes left` footer, if it has one."""
        match = _FOOTER_RE.search(body[-600:])
        if match is not None:
            self.observe("read" if match.group(3) == b"reads" else "write", int(match.group(1)))

    def rate_limited(self, kind: str, wait_s: float) -> None:
        """A 429: the address is out; nothing is believed left for `wait_s`."""
        if kind == "rooms":
            wall = self._wall()
            self.rooms.at_most(wall, 1.0 - max(wait_s, 0.0) * self.rooms.per_s)
            self._rooms_changed()
        elif kind in ("read", "write"):
            bucket = self._bucket(kind)  # type: ignore[arg-type]
            bucket.at_most(self._clock(), -max(wait_s, 0.0) * bucket.per_s)

    # -- waiting reads -----------------------------------------------------------------------

    def take_waiter(self) -> bool:
        if self.waiters_in_use >= self.waiters:
            log.debug("no waiting read: all %d of this wallet's waiter slots are held",
                      self.waiters)
            return False
        self.waiters_in_use += 1
        return True

    def release_waiter(self) -> None:
        self.waiters_in_use = max(0, self.waiters_in_use - 1)

    # -- new rooms ---------------------------------------------------------------------------

    def rooms_left(self) -> int:
        return max(0, math.floor(self.rooms.level(self._wall())))

    def room_free_in_s(self, rooms: int = 1) -> float:
        return self.rooms.seconds_until(self._wall(), float(rooms))

    def room_created(self, room: str) -> None:
        self.known_rooms.add(room)
        self.rooms.spend(self._wall())
        self._rooms_changed()

    def room_exists(self, room: str) -> None:
        self.known_rooms.add(room)

    def _rooms_changed(self) -> None:
        if self._on_rooms is not None:
            wall = self._wall()
            self._on_rooms(self.rooms.level(wall), wall)

    def rooms_sentence(self, needed: int, promised: int = 0) -> str | None:
        """None when `needed` more rooms fit beside `promised` ones; else why not, and when."""
        left = self.rooms_left()
        if left - promised >= needed:
            return None
        wait = self.room_free_in_s(promised + needed)
        per_day = self.limits.rooms_per_day
        mine = self.rooms.capacity
        parts = [f"the venue lets one address create {per_day} new rooms a day and this "
                 f"wallet takes {mine:g} of them (one back every {_duration(86400 / mine)})",
                 f"{left} {'is' if left == 1 else 'are'} left now"]
        if promised:
            parts.append(f"{promised} of those {'is' if promised == 1 else 'are'} promised to "
                         "live deals whose rooms do not exist yet")
        when = "never at this share" if math.isinf(wait) else f"in {_duration(wait)}"
        return (", ".join(parts) + f"; this needs {needed} more, which frees up {when}")

    # -- what the operator sees --------------------------------------------------------------

    def view(self) -> BudgetView:
        wait = self.room_free_in_s(1)
        return BudgetView(
            share=self.share, source=self.limits.source, waiters_in_use=self.waiters_in_use,
            waiters=self.waiters, waiters_per_address=self.limits.waiters,
            reads_left=self._left("read"), reads_per_min=self._per_min("read"),
            writes_left=self._left("write"), writes_per_min=self._per_min("write"),
            rooms_left=self.rooms_left(), rooms_per_day=math.floor(self.rooms.capacity),
            room_free_in_s=0 if wait <= 0 or math.isinf(wait) else math.ceil(wait))


def _duration(seconds: float) -> str:
    s = max(1, math.ceil(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    if h:
        return f"{h} h {m:02d} min"
    return f"{m} min {s:02d} s" if m else f"{s} s"


__all__ = ["BudgetKept", "BudgetView", "RoomBudgetSpent", "Traffic", "VenueBudget",
           "VenueLimits", "current_traffic", "traffic"]
