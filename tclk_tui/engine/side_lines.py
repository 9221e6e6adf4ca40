"""Signed lines that are not tclk/1 frames but belong to a deal: a referee's statement and a
juror's vote commitment or opening.

The fold rightly refuses them as frames (their prefixes differ, so reference readers skip them),
but a deal room that lists a juror's commitment as "not a tclk/1 line" tells the operator the
line is junk. This reading names them for what they are; what they mean for the deal is the
round's reading (`vote_round`) and the statement's provenance check, not this one.
"""

from __future__ import annotations

from tclk_tui.engine.arbitration import VOTE_PREFIX
from tclk_tui.engine.board import parse_statement_line

COMMITMENT = "vote commitment"
OPENING = "vote opening"
STATEMENT = "statement"
SIDE_LINE_TYPES = frozenset({COMMITMENT, OPENING, STATEMENT})


def _short(value: str, keep: int = 18) -> str:
    return value if len(value) <= keep else value[:keep] + "…"


def read_side_line(line: str) -> tuple[str, str] | None:
    """(type, summary) for a statement or vote line, or None for anything else. The summary
    quotes the line's own values (the verdict is a stranger's text until checked)."""
    statement = parse_statement_line(line)
    if statement is not None:
        offer_id, value = statement
        return STATEMENT, f"statement {_short(value)} published for offer {_short(offer_id, 14)}"
    if not line.startswith(VOTE_PREFIX):
        return None
    kind, _, rest = line[len(VOTE_PREFIX):].partition(" ")
    if kind == "commit" and rest and " " not in rest:
        return COMMITMENT, f"vote commitment {_short(rest)} (the verdict stays sealed)"
    salt, _, verdict = rest.partition(" ")
    if kind == "reveal" and salt and verdict:
        return OPENING, f"vote opening: verdict {verdict!r} with salt {_short(salt, 12)}"
    return None


__all__ = ["COMMITMENT", "OPENING", "SIDE_LINE_TYPES", "STATEMENT", "read_side_line"]
