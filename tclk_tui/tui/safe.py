"""The one door through which untrusted text reaches the screen.

Everything the venue hands us (offer fields, DIDs, job ids, notes, reasons, nicknames, topics)
was written by a stranger. A terminal is a programmable device: ESC and C1 bytes drive it, bidi
overrides reorder what the operator reads, zero-width and format characters hide or forge
content, and Textual/Rich markup such as ``[@click=app.quit]`` would turn text into actions.
`literal` makes a string inert: it never parses markup, and every character that is not plainly
visible becomes a visible escape (``\\x1b``, ``\\u202e``) drawn in reverse video, so a forged
backslash sequence typed by a sender still looks different from a real escape.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from rich.text import Text

ESCAPE_STYLE = "reverse"
ELLIPSIS = "…"

# Categories that are never shown raw: controls, format (bidi, zero-width, tags), surrogates,
# private use, unassigned, line and paragraph separators.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Letters that render as blank space: fillers used to fake empty names or pad spoofs.
_BLANK_LOOKING = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x180E})


@lru_cache(maxsize=4096)
def _escape_for(char: str) -> str | None:
    """The visible stand-in for `char`, or None when it is safe to draw as is."""
    code = ord(char)
    if 0x20 <= code < 0x7F:
        return None
    if code < 0x20 or code == 0x7F or 0x80 <= code <= 0x9F:
        return f"\\x{code:02x}"
    if code in _BLANK_LOOKING or unicodedata.category(char) in _HIDDEN_CATEGORIES:
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return None


def _pieces(value: object) -> list[tuple[str, bool]]:
    """Split into runs of (text, is_escape)."""
    text = value if isinstance(value, str) else "" if value is None else str(value)
    if text.isascii() and text.isprintable():
        return [(text, False)]
    pieces: list[tuple[str, bool]] = []
    run: list[str] = []
    for char in text:
        escaped = _escape_for(char)
        if escaped is None:
            run.append(char)
            continue
        if run:
            pieces.append(("".join(run), False))
            run = []
        pieces.append((escaped, True))
    if run:
        pieces.append(("".join(run), False))
    return pieces


def clean(value: object, *, max_len: int | None = None) -> str:
    """Untrusted text as a plain, inert string (for APIs that only take `str`).

    Use it only where the receiving API does not parse markup (e.g. `notify(..., markup=False)`,
    an `Input` value); anywhere a renderable is accepted, use `literal`.
    """
    plain = "".join(piece for piece, _ in _pieces(value))
    return _shorten(plain, max_len)


def literal(value: object, *, max_len: int | None = None, style: str = "") -> Text:
    """Untrusted text as a Rich `Text` that is drawn exactly as written, never interpreted."""
    out = Text(style=style, no_wrap=False, end="")
    used = 0
    for piece, is_escape in _pieces(value):
        if max_len is not None and used + len(piece) > max_len:
            room = max(max_len - used - 1, 0)
            if room and not is_escape:
                out.append(piece[:room])
            out.append(ELLIPSIS)
            return out
        out.append(piece, style=ESCAPE_STYLE if is_escape else None)
        used += len(piece)
    return out


def _shorten(text: str, max_len: int | None) -> str:
    if max_len is None or len(text) <= max_len:
        return text
    return text[: max(max_len - 1, 0)] + ELLIPSIS


def join(*parts: Text | str, sep: str = " ") -> Text:
    """Assemble trusted labels (`str`, our own constants) and already-literal `Text` parts.

    Plain `str` parts here are the program's own words; they are still appended as text, never
    parsed, so a mistake cannot turn into markup.
    """
    out = Text(end="")
    for index, part in enumerate(parts):
        if index and sep:
            out.append(sep)
        out.append(part if isinstance(part, Text) else Text(part))
    return out
