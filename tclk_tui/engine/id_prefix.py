"""How a person names a deal, an offer or a case: its id, or a prefix of it.

One rule for every lookup, light enough for the CLI's cold path to import.
"""

from __future__ import annotations

import re

from tclk_tui.engine.errors import EngineError

MIN_PREFIX_HEX = 4
_PREFIX_RE = re.compile(rf"0x[0-9a-f]{{{MIN_PREFIX_HEX},64}}")


def id_prefix(text: str, what: str) -> str:
    """An offer or contract id, or a prefix of one naming at least 4 hex digits after the
    0x; anything shorter (an empty string, a bare `0x`) would select whatever happens to be
    the only deal or offer, so it is refused."""
    if not isinstance(text, str) or _PREFIX_RE.fullmatch(text) is None:
        raise EngineError(f"no {what} {str(text)[:80]!r}: name it by its id, or by a prefix of "
                          f"at least {MIN_PREFIX_HEX} hex digits after 0x")
    return text


__all__ = ["MIN_PREFIX_HEX", "id_prefix"]
