"""Signed lines that are not tclk/1 frames but belong to a deal: a referee's statement and a
juror's vote commitment or opening.

The fold rightly refuses them as frames (their prefixes differ, so reference readers skip them),
but a deal room that lists a juror's commitment as "not a tclk/1 line" tells the operator the
line is junk. This reading names them for what they are; what they mean for the deal is the
round's reading (`vote_round`) and the statement's provenance check, not this one.
"""

from __future__ import annotations

from tclk_tui.protocol.side_lines import (
    VoteCommitLine,
    try_parse_statement,
    try_parse_vote,
)

COMMITMENT = "vote commitment"
OPENING = "vote opening"
STATEMENT = "statement"
SIDE_LINE_TYPES = frozenset({COMMITMENT, OPENING, STATEMENT})


def _short(value: str, keep: int = 18) -> str:
    return value if len(value) <= keep else value[:keep] + "…"


def read_side_line(line: str) -> tuple[str, str] | None:
    """(type, summary) for a well-formed statement or vote line (`protocol.side_lines`'s
    grammar), or None for anything else, near misses included. The summary quotes the line's
    own values (the verdict is a stranger's text until the round checks it)."""
    statement = try_parse_statement(line)
    if statement is not None:
        return STATEMENT, (f"statement {_short(statement.statement)} published for offer "
                           f"{_short(statement.offer_id, 14)}")
    vote = try_parse_vote(line)
    if vote is None:
        return None
    if isinstance(vote, VoteCommitLine):
        return COMMITMENT, f"vote commitment {_short(vote.commitment)} (the verdict stays sealed)"
    return OPENING, f"vote opening: verdict {vote.verdict!r} with salt {_short(vote.salt, 12)}"


__all__ = ["COMMITMENT", "OPENING", "SIDE_LINE_TYPES", "STATEMENT", "read_side_line"]
