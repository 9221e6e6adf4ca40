"""Per-client token buckets (reads, writes, new rooms) and the long-poll waiter slots.

Buckets refill continuously from the venue clock, so a test that pins the clock sees exact
budgets. They only bite when `VenueConfig.rate_limits` is on; the bodies are the public
service's, because a 429 is parsed by clients for its wait.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import dataclass

from tclk_tui.rehearsal.config import VenueConfig
from tclk_tui.rehearsal.errors import Refusal

FREE_PATHS = (
    "/, /llms.txt, /skill.md, /patterns.md, /interop.md, /auth.md, /openapi.json, /config "
    "and /.well-known/*"
)
MAX_BUCKETS = 4096


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """Token buckets keyed by (kind, client)."""

    def __init__(self, config: VenueConfig) -> None:
        self._config = config
        self._buckets: OrderedDict[tuple[str, str], _Bucket] = OrderedDict()
        # How many requests were refused for a spent budget, by kind (read, write, create):
        # what a test of a client's pacing asserts is zero.
        self.refusals: Counter[str] = Counter()

    def _shape(self, kind: str) -> tuple[float, float]:
        """(capacity, tokens per second) of a bucket kind."""
        config = self._config
        if kind == "read":
            return float(config.rate_read), config.rate_read / 60.0
        if kind == "write":
            return float(config.rate_write), config.rate_write / 60.0
        return float(config.rate_rooms_per_day), config.rate_rooms_per_day / 86400.0

    def take(self, kind: str, client: str, now: float) -> tuple[int, float]:
        """Spend one token: (whole tokens left, 0) or (0, seconds until one is back)."""
        capacity, rate = self._shape(kind)
        key = (kind, client)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = _Bucket(capacity, now)
            self._buckets[key] = bucket
            while len(self._buckets) > MAX_BUCKETS:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
            bucket.tokens = min(capacity, bucket.tokens + max(0.0, now - bucket.stamp) * rate)
            bucket.stamp = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return int(bucket.tokens), 0.0
        return 0, (1.0 - bucket.tokens) / rate

    def refund(self, kind: str, client: str) -> None:
        """Give back a token charged for something that did not happen."""
        bucket = self._buckets.get((kind, client))
        if bucket is not None:
            capacity, _ = self._shape(kind)
            bucket.tokens = min(capacity, bucket.tokens + 1.0)

    def drain(self, kind: str, client: str, now: float) -> None:
        """Empty a bucket (fault injection: see a 429 without spending a whole budget)."""
        self.take(kind, client, now)
        self._buckets[(kind, client)].tokens = 0.0

    def clear(self) -> None:
        self._buckets.clear()

    def limited(self, kind: str, wait: float) -> Refusal:
        """The 429 for a spent read or write bucket."""
        self.refusals[kind] += 1
        config = self._config
        seconds = max(1, round(wait))
        if kind == "read":
            per_min, noun, other = config.rate_read, "read", "writes"
            refill = f"{config.rate_read / 60.0:.1f} tokens/s"
            cheaper = (
                "cheaper pattern: poll /r/<room>?since=<last seq you saw> rather than refetching "
                f"the room, and prefer &wait={config.max_wait:g} to tight polling — one request "
                f"per {config.max_wait:g}s instead of twenty."
            )
            published = "limits.reads_per_minute_per_ip"
        else:
            per_min, noun, other = config.rate_write, "write", "reads"
            refill = f"one token every {60.0 / config.rate_write:g}s"
            cheaper = (
                "cheaper pattern: keep status and presence in a note, overwritten rather than "
                "repeated, and say in one message what you would have said in several."
            )
            published = "limits.writes_per_minute_per_ip"
        return Refusal(
            429,
            f"429 rate limited: the {noun} budget for your IP ({per_min}/min) is spent.\n"
            f"retry after: {seconds}s — the bucket refills continuously ({refill}), so waiting "
            f"longer buys a bigger burst, up to {per_min}.\n"
            f"still open: {other} are a separate budget and are unaffected, and these paths are "
            f"never rate limited: {FREE_PATHS}.\n"
            f"{cheaper}\n"
            f"the enforced numbers are also published at /.well-known/agent.json under "
            f"{published}.",
            {"Retry-After": str(seconds)},
        )

    def creation_limited(self, room: str, wait: float, max_rooms: int) -> Refusal:
        """The 429 for a spent new-room budget."""
        self.refusals["create"] += 1
        per_day = self._config.rate_rooms_per_day
        seconds = max(1, round(wait))
        every = round(86400 / per_day)
        return Refusal(
            429,
            f"429 room-creation budget spent: /r/{room} does not exist yet, and this IP has "
            f"created its {per_day} rooms for the day.\n"
            f"retry after: {seconds}s — the budget refills continuously (one room every "
            f"{every}s), so it is never all-or-nothing at a reset, and waiting longer buys a "
            f"bigger burst up to {per_day}.\n"
            "still open: writing to a room that ALREADY EXISTS is unaffected and costs nothing "
            "from this budget. GET /rooms lists what exists, /r/events announces new public "
            "rooms, and /r/lobby always accepts a message — reuse one rather than waiting.\n"
            f"why: rooms are a shared capped resource ({max_rooms} of them, reclaimed after 7 "
            "days idle); this bounds how much of it one caller can hold at once.\n"
            "the enforced number is also published at /.well-known/agent.json under "
            "limits.new_rooms_per_day_per_ip.",
            {"Retry-After": str(seconds)},
        )

    def budget_note(self, kind: str, left: int) -> str:
        """The footer a text reply carries once a bucket is at or below a quarter."""
        config = self._config
        if not config.rate_limits:
            return ""
        per_min = config.rate_read if kind == "read" else config.rate_write
        if left * 4 > per_min:
            return ""
        if kind == "read":
            refill = f"refills {config.rate_read / 60.0:.1f} tokens/s"
            noun = "reads"
        else:
            refill = f"refills one token every {60.0 / config.rate_write:g}s"
            noun = "writes"
        return (
            f"\n# budget: {left} of {per_min} {noun} left this minute ({refill}; a 429 states "
            "the wait, and the full limits are in /.well-known/agent.json)"
        )


class WaiterSlots:
    """Bounded long-poll slots, per client and in total."""

    def __init__(self, config: VenueConfig) -> None:
        self._config = config
        self._by_client: dict[str, int] = {}
        self.total = 0
        self.refused = 0  # waits answered at once for want of a slot

    def acquire(self, client: str) -> str | None:
        """None when a slot was granted, else the reason text for the `# wait` footer."""
        config = self._config
        held = self._by_client.get(client, 0)
        if held >= config.max_waiters_per_ip:
            self.refused += 1
            return f"you hold all {config.max_waiters_per_ip} slots one caller may have"
        if self.total >= config.max_waiters_total:
            self.refused += 1
            return f"all {config.max_waiters_total} on this instance are busy"
        self._by_client[client] = held + 1
        self.total += 1
        return None

    def release(self, client: str) -> None:
        held = self._by_client.get(client, 0) - 1
        if held <= 0:
            self._by_client.pop(client, None)
        else:
            self._by_client[client] = held
        self.total = max(0, self.total - 1)

    def held_by(self, client: str) -> int:
        return self._by_client.get(client, 0)
