"""One "last safe moment" per deal, and how close it is.

The engine warns; it never acts on a deadline by itself. The moment depends on whose move it is:
the payer must lock while the payee still has a claim window, the payee must reveal before
`claimByMs` (after it the reveal races the refund), and a locked payer waits for the refund
window to open.
"""

from __future__ import annotations

from tclk_tui.engine.events import DangerLevel
from tclk_tui.engine.views import Deadlines

DANGER_MS = 5 * 60_000
SOON_MS = 30 * 60_000


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


def deal_deadlines(offer: dict, status: str, role: str, now_ms: int,
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
