"""Rail ids as the engine names them, for faces that hold rail names but not the protocol.

An agent's grant lists rails, and an agent names rails in its calls; both are compared in the
spelling the engine itself would put in a frame, so `MEMORY` is `memory` for a grant exactly as
it is for the offer the engine posts.
"""

from __future__ import annotations

from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.rails import normalize_rail_id, normalize_rail_ids


def canonical_rail(value: str) -> str:
    """The registered id `value` stands for, or `value` itself when it names none."""
    try:
        return normalize_rail_id(value)
    except TclkError:
        return value


def offered_rails(text: str) -> tuple[str, ...]:
    """The rails an offer's comma-separated `rails` param names, as the posted offer will name
    them (normalised, de-duplicated, sorted); a list the engine would refuse comes back as
    written, for the engine to refuse with its own reason."""
    items = [r for r in text.split(",") if r.strip()]
    try:
        return tuple(normalize_rail_ids(items))
    except TclkError:
        return tuple(r.strip() for r in items)


__all__ = ["canonical_rail", "offered_rails"]
