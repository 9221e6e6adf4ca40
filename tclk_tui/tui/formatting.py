"""Short forms for ids, clocks and countdowns, so every pane says time and identity the same way.

All times are shown in UTC: the venue and the deadlines are UTC milliseconds, and an operator
on a remote SSH session should never have to guess which zone a deadline is in.
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text

from tclk_tui.engine.events import DangerLevel, VenueState
from tclk_tui.tui.safe import clean, literal

DID_KEY_PREFIX = "did:key:"

# Words, not marks: each reads on its own, with NO_COLOR and to a newcomer.
LEVEL_LABEL: dict[str, str] = {
    "calm": "time enough",
    "soon": "SOON",
    "danger": "DANGER",
    "past": "LATE",
}
# Styles rely on reverse/bold as well as colour so the level survives NO_COLOR.
LEVEL_STYLE: dict[str, str] = {
    "calm": "",
    "soon": "bold",
    "danger": "bold reverse",
    "past": "bold reverse",
}
LEVEL_CLASS: dict[str, str] = {
    "calm": "-calm",
    "soon": "-soon",
    "danger": "-danger",
    "past": "-past",
}

VENUE_LABEL: dict[str, str] = {
    "connecting": "connecting",
    "following": "following",
    "polling": "polling",
    "reconnecting": "RECONNECTING",
    "rate-limited": "RATE-LIMITED",
    "gap-detected": "RECORDS MISSED",
    "offline": "OFFLINE",
}
VENUE_MARK: dict[str, str] = {
    "connecting": "~",
    "following": "*",
    "polling": "~",
    "reconnecting": "!",
    "rate-limited": "!",
    "gap-detected": "!!",
    "offline": "x",
}
VENUE_CLASS: dict[str, str] = {
    "connecting": "-connecting",
    "following": "-following",
    "polling": "-connecting",
    "reconnecting": "-warn",
    "rate-limited": "-warn",
    "gap-detected": "-bad",
    "offline": "-bad",
}


def short_did(did: object, *, head: int = 4, tail: int = 4) -> str:
    """`did:key:z6MkhaXg…` -> `z6Mk…Xg2a`: enough to tell parties apart, never the full key."""
    text = clean(did)
    if not text:
        return "-"
    key = text[len(DID_KEY_PREFIX):] if text.startswith(DID_KEY_PREFIX) else text
    if len(key) <= head + tail + 1:
        return key
    return f"{key[:head]}…{key[-tail:]}"


def short_hex(value: object, *, keep: int = 10) -> str:
    text = clean(value)
    if not text:
        return "-"
    return text if len(text) <= keep + 1 else text[:keep] + "…"


def countdown(ms_left: int) -> str:
    """A compact countdown that fits 7 cells: `45s`, `12m05s`, `3h07m`, `2d03h`, `past`."""
    if ms_left <= 0:
        return "past"
    seconds = ms_left // 1000
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours}h{minutes:02d}m"
    days, hours = divmod(hours, 24)
    if days < 100:
        return f"{days}d{hours:02d}h"
    return "99d+"


def utc_time(ms: int) -> str:
    """`HH:MM:SS` in UTC."""
    return _utc(ms).strftime("%H:%M:%S")


def utc_hhmm(ms: int) -> str:
    """`HH:MM` in UTC: enough beside a countdown, which carries the days."""
    return _utc(ms).strftime("%H:%M")


def utc_stamp(ms: int) -> str:
    """`YYYY-MM-DD HH:MM:SS UTC`."""
    return _utc(ms).strftime("%Y-%m-%d %H:%M:%S UTC")


def _utc(ms: int) -> datetime:
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return datetime.fromtimestamp(0, tz=UTC)


def level_text(level: DangerLevel | str, text: str) -> Text:
    """`text` styled for its danger level (bold/reverse, so it reads without colour)."""
    return Text(text, style=LEVEL_STYLE.get(level, ""))


def venue_text(state: VenueState | str, detail: str = "") -> Text:
    label = VENUE_LABEL.get(state, clean(state))
    mark = VENUE_MARK.get(state, "?")
    out = Text(f"{mark} {label}")
    if detail:
        out.append(" (")
        out.append_text(literal(detail, max_len=40))
        out.append(")")
    return out


def rails_text(rails: tuple[str, ...]) -> str:
    return ",".join(clean(rail) for rail in rails) or "-"


def capability_hint(capability: tuple[str, ...] | None) -> str:
    """`+` when the sender's DID note advertises tclk/1 rails, `?` when it says nothing; the
    board's detail line says which, in words (`capability_legend`).

    A routing hint only: the note is world-writable, so this is never shown as proof.
    """
    return "?" if capability is None else "+"


def capability_legend(capability: tuple[str, ...] | None) -> Text:
    """What the sender's `+` or `?` means, for the highlighted offer."""
    mark = capability_hint(capability)
    if capability is None:
        return Text(f"{mark} = the sender's DID note names no tclk1 rails")
    out = Text(f"{mark} = the sender's DID note lists rails ")
    out.append_text(literal(",".join(capability) or "none"))
    out.append(" (a hint, not proof)")
    return out
