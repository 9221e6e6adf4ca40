"""One "last safe moment" per deal, and how close it is.

The engine warns (by itself it only refunds, once the window is open: engine/deal/autopilot.py).
The moment depends on whose move it is: the payer must lock while the payee still has a claim
window, the payee must reveal before `claimByMs` (after it the reveal races the refund), and a
locked payer waits for the refund window to open.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from tclk_tui.engine.events import DangerLevel
from tclk_tui.engine.views import Deadlines

DANGER_MS = 5 * 60_000
SOON_MS = 30 * 60_000


def moment_text(at_ms: int, now_ms: int) -> str:
    """When a deadline falls, in plain time: `13:44 UTC (in 1h59m)`, the date added when it is
    not today. UTC, as every face shows deadlines, so two operators read the same words."""
    try:
        at, now = (datetime.fromtimestamp(ms / 1000, tz=UTC) for ms in (at_ms, now_ms))
    except (OverflowError, OSError, ValueError):
        return f"at {at_ms} ms since 1970"
    clock = at.strftime("%H:%M UTC") if at.date() == now.date() else \
        at.strftime("%Y-%m-%d %H:%M UTC")
    left = max(-(-(at_ms - now_ms) // 1000), 0)  # whole seconds, rounded up: never "in 0s"
    days, rest = divmod(left, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    span = (f"{days}d{hours}h" if days else f"{hours}h{minutes:02d}m" if hours else
            f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s")
    return f"{clock} (in {span})"


def danger_level(now_ms: int, deadline_ms: int, window_ms: int) -> DangerLevel:
    """`past` at or after the deadline; `danger` in the last 10% (or 5 min); `soon` in the
    last 25% (or 30 min); else `calm`."""
    left = deadline_ms - now_ms
    if left <= 0:
        return "past"
    window = max(window_ms, 1)
    if left <= max(window // 10, min(DANGER_MS, window // 4)):
        return "danger"
    if left <= max(window // 4, min(SOON_MS, window // 2)):
        return "soon"
    return "calm"


def deal_deadlines(offer: Mapping[str, Any], status: str, role: str, now_ms: int,
                   opened_ms: int | None = None) -> Deadlines:
    expires = offer["expiresMs"]
    claim_by = offer["claimByMs"]
    refund_after = offer["refundAfterMs"]
    start = opened_ms if opened_ms is not None else min(now_ms, expires)
    if status == "proposed":
        last, what = expires, "the offer must be accepted"
    elif status == "accepted" and role == "payer":
        last, what = claim_by, "lock before the payee's claim window closes"
    elif status == "accepted":
        last, what = refund_after, "the payer must lock"
    elif status == "locked" and role == "payee":
        last, what = claim_by, "reveal before claimByMs"
    elif status == "locked":
        last, what = refund_after, "the refund window opens"
    else:
        return Deadlines(now_ms=now_ms, expires_ms=expires, claim_by_ms=claim_by,
                         refund_after_ms=refund_after, last_safe_ms=0,
                         last_safe_what=f"settled: {status}", level="calm")
    level = danger_level(now_ms, last, last - start)
    if status == "locked" and role == "payer":
        level = "calm" if level != "past" else "past"
    return Deadlines(now_ms=now_ms, expires_ms=expires, claim_by_ms=claim_by,
                     refund_after_ms=refund_after, last_safe_ms=last, last_safe_what=what,
                     level=level)
