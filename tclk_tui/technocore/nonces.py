"""Signed-lane nonces: strictly increasing per identity per room, across restarts.

The venue refuses a signed write whose nonce is not above the last one the same key used in the
same room. A millisecond clock alone would repeat after a clock step backwards or two posts in
one millisecond, and a counter alone would restart at zero with a fresh store, so the allocator
takes the larger of the clock and the last issued value plus one, and persists it before handing
it out: a crash after the post can then only skip a nonce, never reuse one.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from tclk_tui.technocore.identity import MAX_NONCE


@runtime_checkable
class NonceStore(Protocol):
    """Durable last-issued nonce per (did, room)."""

    def load(self, did: str, room: str) -> int | None: ...

    def save(self, did: str, room: str, nonce: int) -> None: ...


class MemoryNonceStore:
    """A NonceStore for tests and throwaway identities (forgets everything on exit)."""

    def __init__(self) -> None:
        self._values: dict[tuple[str, str], int] = {}

    def load(self, did: str, room: str) -> int | None:
        return self._values.get((did, room))

    def save(self, did: str, room: str, nonce: int) -> None:
        self._values[(did, room)] = nonce


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class NonceAllocator:
    """Hands out nonces for one identity, never repeating or going backwards in a room."""

    def __init__(
        self, did: str, store: NonceStore, clock_ms: Callable[[], int] = wall_clock_ms
    ) -> None:
        self.did = did
        self._store = store
        self._clock_ms = clock_ms
        self._lock = threading.Lock()

    def _last(self, room: str) -> int | None:
        last = self._store.load(self.did, room)
        if last is not None and (isinstance(last, bool) or not isinstance(last, int)):
            raise ValueError(f"nonce store returned a non-integer for room {room}")
        return last

    def next(self, room: str) -> int:
        """The next nonce for `room`, saved to the store before it is returned."""
        with self._lock:
            now = self._clock_ms()
            if isinstance(now, bool) or not isinstance(now, int) or now < 0:
                raise ValueError("the nonce clock must return a non-negative integer of ms")
            last = self._last(room)
            nonce = now if last is None else max(now, last + 1)
            if nonce > MAX_NONCE:
                raise ValueError(f"nonces for room {room} are exhausted (19 digits)")
            self._store.save(self.did, room, nonce)
            return nonce

    def observe(self, room: str, used: int) -> None:
        """Record that `used` was spent in `room` elsewhere (another device, a lost store)."""
        if isinstance(used, bool) or not isinstance(used, int) or not 0 <= used <= MAX_NONCE:
            raise ValueError("an observed nonce is an integer of at most 19 digits")
        with self._lock:
            last = self._last(room)
            if last is None or used > last:
                self._store.save(self.did, room, used)

    def __repr__(self) -> str:
        return f"NonceAllocator(did={self.did!r})"
