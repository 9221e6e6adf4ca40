"""The venue status's budget lines, in plain words: what this wallet may still ask of the venue.

The numbers are the engine's (its share of the venue's per-address budgets, see
engine.sync.venue_budget); this only says them so an operator can tell at a glance whether a slow
board is the venue being quiet or the wallet keeping within its limits.
"""

from __future__ import annotations

from tclk_tui.engine.sync.venue_budget import VenueBudgetView
from tclk_tui.tui.safe import clean


def _wait(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def budget_lines(view: VenueBudgetView) -> list[str]:
    b = view.budget
    share = ("this wallet alone on its address" if b.share == 1 else
             f"this wallet's share: 1/{b.share} of its address's")
    rooms = f"new rooms {b.rooms_left} of {b.rooms_per_day} left today"
    if b.rooms_left == 0 and b.room_free_in_s:
        rooms += f" (one back in {_wait(b.room_free_in_s)})"
    waiting = ", ".join(clean(room, max_len=48) for room in view.waiting[:4]) or "none"
    return [
        f"budgets ({share}, from {clean(b.source, max_len=40)}):",
        f"waiting reads {b.waiters_in_use} of {b.waiters} in use (the venue holds "
        f"{b.waiters_per_address} per address)",
        f"reads {b.reads_left} of {b.reads_per_min} left this minute, "
        f"writes {b.writes_left} of {b.writes_per_min}",
        rooms,
        f"rooms followed: {len(view.waiting)} with a waiting read ({waiting}), "
        f"{view.scheduled} read on a schedule, {view.dropped} settled and dropped",
    ]
