"""The one door through which untrusted text reaches the screen.

Everything the venue hands us (offer fields, DIDs, job ids, notes, reasons, nicknames, topics)
was written by a stranger. A terminal is a programmable device: ESC and C1 bytes drive it, bidi
overrides reorder what the operator reads, zero-width and format characters hide or forge
content, and Textual/Rich markup such as ``[@click=app.quit]`` would turn text into actions.
`literal` makes a string inert: it never parses markup, and every character that is not plainly
visible becomes a visible escape (``\\x1b``, ``\\u202e``; the rule is `engine.inert`'s, shared
with the CLI) drawn in reverse video, so a forged backslash sequence typed by a sender still
looks different from a real escape. `clean` is the plain-string form, for APIs that only take
`str` and do not parse markup (``notify(..., markup=False)``, an `Input` value).
"""

from __future__ import annotations

from rich.text import Text

from tclk_tui.engine.inert import ELLIPSIS, clean, pieces

ESCAPE_STYLE = "reverse"
__all__ = ["ELLIPSIS", "ESCAPE_STYLE", "clean", "join", "literal"]


def literal(value: object, *, max_len: int | None = None, style: str = "") -> Text:
    """Untrusted text as a Rich `Text` that is drawn exactly as written, never interpreted."""
    out = Text(style=style, no_wrap=False, end="")
    used = 0
    for piece, is_escape in pieces(value):
        if max_len is not None and used + len(piece) > max_len:
            room = max(max_len - used - 1, 0)
            if room and not is_escape:
                out.append(piece[:room])
            out.append(ELLIPSIS)
            return out
        out.append(piece, style=ESCAPE_STYLE if is_escape else None)
        used += len(piece)
    return out


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
