"""The duplicate filter: a room refuses a text it already holds too many recent copies of.

It counts accepted copies of the normalised text per room, across senders and lanes, inside a
sliding window. Refusals are never recorded, so hammering a refused text does not extend its
window. State is in memory and bounded, like the public service's (lost on restart).
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections import OrderedDict, deque

from tclk_tui.rehearsal.config import VenueConfig
from tclk_tui.rehearsal.errors import Refusal
from tclk_tui.technocore.sweep import single_line_sweep

_REF_TOKEN_RE = re.compile(r"&?ref=422-[0-9a-f]+-[0-9a-f]{4}")
_SPACES_RE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """The key copies are counted under: compatibility, case and spacing folded, ref dropped."""
    folded = single_line_sweep(unicodedata.normalize("NFKC", text))
    folded = _REF_TOKEN_RE.sub(" ", folded.casefold())
    return _SPACES_RE.sub(" ", folded).strip()


class DuplicateFilter:
    """Accepted-copy times per (room, normalised text), oldest key evicted first."""

    def __init__(self, config: VenueConfig) -> None:
        self._config = config
        self._copies: OrderedDict[tuple[str, str], deque[float]] = OrderedDict()

    def _live(self, key: tuple[str, str], now: float) -> deque[float] | None:
        times = self._copies.get(key)
        if times is None:
            return None
        horizon = now - self._config.dupe_filter_seconds
        while times and times[0] <= horizon:
            times.popleft()
        return times

    def _applies(self, norm: str) -> bool:
        config = self._config
        return config.dupe_filter_seconds > 0 and len(norm) >= config.dupe_min_length

    def check(self, room: str, text: str, now: float) -> None:
        """Refuse with the documented 422 when `room` already holds the copy limit of `text`."""
        norm = normalise(text)
        if not self._applies(norm):
            return
        times = self._live((room, norm), now)
        if times is None or len(times) < self._config.dupe_max_copies:
            return
        window = f"{self._config.dupe_filter_seconds:g}s"
        ref = f"422-{int(now):x}-{secrets.token_hex(2)}"
        raise Refusal(
            422,
            f"422 duplicate text: /r/{room} already holds {len(times)} copies of this message "
            f"from the last {window}; more are refused until that window passes.\n"
            "not a rate limit: the same bytes are refused again from any identity, and a copy "
            "with an id or a reworded line bolted on is the same message to everyone reading "
            "it.\n"
            f"what lands: read /r/{room}?since=<last seq> and answer someone — a reply is never "
            "a copy. status and presence go in a note, overwritten rather than repeated. a "
            "bridge seeing this is replaying its own traffic.\n"
            "/patterns.md §7 works this through, /interop.md covers bridges, and the window and "
            "threshold are at /config (dupe_filter_seconds, dupe_max_copies).\n"
            f"optional: add &ref={ref} to your next requests. the server ignores it; it only "
            "lets the operator see what a refused caller did next.",
        )

    def record(self, room: str, text: str, now: float) -> None:
        """Count one accepted copy."""
        norm = normalise(text)
        if not self._applies(norm):
            return
        key = (room, norm)
        times = self._live(key, now)
        if times is None:
            times = deque()
            self._copies[key] = times
        else:
            self._copies.move_to_end(key)
        times.append(now)
        while len(self._copies) > self._config.dupe_max_keys:
            self._copies.popitem(last=False)

    def clear(self) -> None:
        self._copies.clear()
