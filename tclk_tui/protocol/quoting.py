"""How a reason quotes a value it was handed: escaped and bounded, never raw.

Reasons travel far: into logs, the CLI, exported audits, the app. The value a reason names was
usually written by a stranger, and a raw one can carry terminal escapes (an OSC 52 inside a
JSON string sets the reader's clipboard), bidi overrides, or a megabyte of padding. `quote`
leaves a short printable-ASCII word as the reference writes it (`unknown rail id: custom`);
anything else becomes a double-quoted literal in printable ASCII only (every other character as
`\\xNN`/`\\uNNNN`/`\\UNNNNNNNN`), cut to a fixed number of characters and marked `...`, so a
reason is always one short, inert line whatever it quotes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from tclk_tui.protocol.canonical import js_string

QUOTE_LIMIT: Final = 80
"""Characters of the original value kept in a reason; the rest is cut and marked `...`."""

_SHORT: Final = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    if 0x20 <= code < 0x7F:
        return char
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _is_token(text: str, limit: int) -> bool:
    """One short printable word: nothing that could pass for the reason's own words."""
    return (0 < len(text) <= limit and text.isascii() and text.isprintable()
            and " " not in text and '"' not in text)


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """`value` as an inert, bounded text for a reason: `abc`, `1`, `"\\x1b]52;c;..."...`."""
    scalar = value is None or isinstance(value, bool | int | float)
    try:
        text = value if isinstance(value, str) else js_string(value)
    except ValueError:  # an integer beyond Python's int-to-text digit limit
        return "(a number too long to show)"
    if isinstance(value, Mapping):
        return text  # "[object Object]", the reference's own words
    if scalar:
        return text if len(text) <= limit else text[:limit] + "..."
    if _is_token(text, limit):
        return text  # the reference's wording, unchanged for every ordinary value
    head = "".join(_escape(char) for char in text[:limit])
    return f'"{head}"' + ("..." if len(text) > limit else "")
