"""Untrusted text made inert for any face: the app, the CLI, logs an operator reads.

Everything the venue hands us was written by a stranger, and a terminal is a programmable
device: ESC and C1 bytes drive it (an OSC 52 sets the clipboard, an OSC 0 renames the window),
bidi overrides reorder what the operator reads, zero-width and format characters hide or forge
content. Here every character that is not plainly visible becomes a visible escape (``\\x1b``,
``\\u202e``). Pure and free of Rich/Textual, so the headless CLI uses the very same rule as the
app (whose `tui.safe` draws the escapes in reverse video on top of these pieces).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

ELLIPSIS = "…"

# Categories that are never shown raw: controls, format (bidi, zero-width, tags), surrogates,
# private use, unassigned, line and paragraph separators.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Letters that render as blank space: fillers used to fake empty names or pad spoofs.
_BLANK_LOOKING = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x180E})


@lru_cache(maxsize=4096)
def escape_for(char: str) -> str | None:
    """The visible stand-in for `char`, or None when it is safe to draw as is."""
    code = ord(char)
    if 0x20 <= code < 0x7F:
        return None
    if code < 0x20 or code == 0x7F or 0x80 <= code <= 0x9F:
        return f"\\x{code:02x}"
    if code in _BLANK_LOOKING or unicodedata.category(char) in _HIDDEN_CATEGORIES:
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return None


def pieces(value: object) -> list[tuple[str, bool]]:
    """`value` as text, split into runs of (text, is_escape)."""
    text = value if isinstance(value, str) else "" if value is None else str(value)
    if text.isascii() and text.isprintable():
        return [(text, False)]
    out: list[tuple[str, bool]] = []
    run: list[str] = []
    for char in text:
        escaped = escape_for(char)
        if escaped is None:
            run.append(char)
            continue
        if run:
            out.append(("".join(run), False))
            run = []
        out.append((escaped, True))
    if run:
        out.append(("".join(run), False))
    return out


def shorten(text: str, max_len: int | None) -> str:
    if max_len is None or len(text) <= max_len:
        return text
    return text[: max(max_len - 1, 0)] + ELLIPSIS


def clean(value: object, *, max_len: int | None = None) -> str:
    """Untrusted text as one plain, inert line."""
    return shorten("".join(piece for piece, _ in pieces(value)), max_len)


def clean_lines(text: str) -> str:
    """A block of output lines made inert line by line: the line breaks stay, nothing else."""
    return "\n".join(clean(line) for line in text.split("\n"))
