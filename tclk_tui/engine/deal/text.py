"""How a deal says its facts: a DID shortened, a frame in plain words, a span of time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def short(did: str | None) -> str:
    if not did:
        return "-"
    return f"{did[:12]}…{did[-4:]}" if len(did) > 20 else did


def describe_frame(frame: Mapping[str, Any], amount_text: str | None = None) -> str:
    """A frame in plain words for the transcript view (values are quoted, never interpreted);
    an offer's amount as `amount_text` says it reads (engine.money), when given."""
    kind = frame.get("type")
    if kind == "offer":
        shown = amount_text or f"{frame['amount']} {frame['asset']}"
        return (f"offer: {frame['role']} {shown} under a "
                f"{frame['lock']} lock on {', '.join(frame['rails'])}")
    if kind == "accept":
        return f"accept with statement {frame['statement'][:14]}…"
    if kind == "lock":
        extra = " with an adaptor pre-signature" if "presig" in frame else ""
        return f"lock on {frame['rail']} ref {frame['ref']!r}{extra}"
    if kind == "reveal":
        return "reveal of the secret (claim)"
    if kind == "refund":
        return "refund" + (f": {frame['reason']!r}" if "reason" in frame else "")
    if kind == "cancel":
        return "cancel" + (f": {frame['reason']!r}" if "reason" in frame else "")
    if kind == "receipt":
        return f"receipt: {frame['outcome']}"
    if kind == "heartbeat":
        return "heartbeat" + (f": {frame['note']!r}" if "note" in frame else "")
    return str(kind)



def ms_text(ms: int) -> str:
    if ms <= 0:
        return "passed"
    s = ms // 1000
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else f"{m}m{s:02d}s"


def ms_ago(ms: int) -> str:
    return "just now" if ms < 1000 else f"{ms_text(ms)} ago"
