"""The commit-reveal vote round as a table (SPEC §8.3): each juror commits, then opens; the
panel's tally is what the openings say.

Pure, like `machine.py`: no I/O and no clock (a line's venue timestamp and the round's deadline
decide lateness), never mutates, never raises on a stranger's line. Per juror the round is in
one of `JUROR_STATES`; each vote line a juror posts is one of `VOTE_EVENTS`, classified against
the round before it (`vote_event`); `TRANSITIONS` says, for every (state, event), the state
after and what is said of the line: a `problem` (the line is ignored, or does not count) and a
`flag` (marked on the juror for every reader to see). `apply_vote` is the one step.

The events:

- `commit`: a commitment before the deadline;
- `late-commit`: a commitment at or after the deadline (ignored, and the juror is flagged);
- `open`: an opening that opens the juror's own commitment, once the commit phase is closed;
- `early-open`: the same while some juror has not committed and the deadline has not passed
  (it counts, but it let later jurors see it before committing, so it is flagged);
- `wrong-open`: an opening that opens no commitment of this juror's.

The commit phase is closed once every juror has committed or the deadline has passed
(`commit_closed`); a wallet posts its own opening only then. Who is on the panel, whether a
record's signature holds and whether its line parses are the reader's to check before a line
reaches here (`engine.arbitration.vote_round`).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from tclk_tui.protocol.arbitration import verify_vote_commitment
from tclk_tui.protocol.side_lines import VoteCommitLine, VoteLine

JUROR_STATES: Final[tuple[str, ...]] = ("waiting", "committed", "opened")
VOTE_EVENTS: Final[tuple[str, ...]] = ("commit", "late-commit", "open", "early-open",
                                       "wrong-open")

SECOND_COMMIT: Final = "second commitment from one juror ignored"
LATE_COMMIT: Final = "commitment after the round closed ignored"
NO_COMMITMENT: Final = "opening without a commitment ignored"
SECOND_OPENING: Final = "second opening from one juror ignored"
MISMATCH: Final = "opening does not match its commitment"
LATE_FLAG: Final = "late commitment"
MISMATCH_FLAG: Final = "mismatched opening"
EARLY_FLAG: Final = "opened before every juror committed"


@dataclass(frozen=True, slots=True)
class Move:
    """What one (state, event) does: the juror's state after, and what is said of the line."""

    after: str
    problem: str | None = None
    flag: str | None = None


def _late(state: str) -> Move:
    return Move(state, LATE_COMMIT, LATE_FLAG)


TRANSITIONS: Final[Mapping[tuple[str, str], Move]] = MappingProxyType({
    ("waiting", "commit"): Move("committed"),
    ("waiting", "late-commit"): _late("waiting"),
    ("waiting", "open"): Move("waiting", NO_COMMITMENT),
    ("waiting", "early-open"): Move("waiting", NO_COMMITMENT),
    ("waiting", "wrong-open"): Move("waiting", NO_COMMITMENT),
    ("committed", "commit"): Move("committed", SECOND_COMMIT),
    ("committed", "late-commit"): _late("committed"),
    ("committed", "open"): Move("opened"),
    ("committed", "early-open"): Move("opened", flag=EARLY_FLAG),
    ("committed", "wrong-open"): Move("committed", MISMATCH, MISMATCH_FLAG),
    ("opened", "commit"): Move("opened", SECOND_COMMIT),
    ("opened", "late-commit"): _late("opened"),
    ("opened", "open"): Move("opened", SECOND_OPENING),
    ("opened", "early-open"): Move("opened", SECOND_OPENING),
    ("opened", "wrong-open"): Move("opened", SECOND_OPENING),
})
"""Every (juror state, event): the round's whole rule, one row each."""


@dataclass(frozen=True, slots=True)
class Juror:
    """One juror's part of the round: where they are, what they committed and opened, and the
    flags their lines earned."""

    did: str
    state: str = "waiting"
    commitment: str | None = None
    verdict: str | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class VoteRound:
    """A round: the contract voted on, the commit deadline, the panel's jurors in panel order,
    and the jurors in the order they opened (the tally counts in that order)."""

    contract: str
    deadline_ms: int
    jurors: tuple[Juror, ...]
    opened_order: tuple[str, ...] = ()

    def juror(self, did: str) -> Juror | None:
        return next((j for j in self.jurors if j.did == did), None)

    @property
    def all_committed(self) -> bool:
        return all(j.state != "waiting" for j in self.jurors)

    def commit_closed(self, now_ms: int | None) -> bool:
        """Whether the commit phase is over: every juror committed, or (with a clock) the
        deadline passed."""
        return self.all_committed or (now_ms is not None and now_ms >= self.deadline_ms)

    def tally(self) -> dict[str, int]:
        """The panel's tally: votes per verdict, most first (ties in the order opened)."""
        verdicts = {j.did: j.verdict for j in self.jurors if j.verdict is not None}
        return dict(Counter(verdicts[d] for d in self.opened_order).most_common())


@dataclass(frozen=True, slots=True)
class VoteStep:
    """One line applied: the round after it, the juror's state before, the event, the move."""

    round: VoteRound
    before: str
    event: str
    move: Move


def open_round(contract: str, jurors: tuple[str, ...], deadline_ms: int) -> VoteRound:
    """A round nobody has voted in yet."""
    return VoteRound(contract, deadline_ms, tuple(Juror(d) for d in dict.fromkeys(jurors)))


def vote_event(round_: VoteRound, juror: Juror, vote: VoteLine, at_ms: int) -> str:
    """What `vote` from `juror`, posted at `at_ms`, is in this round (one of VOTE_EVENTS)."""
    if isinstance(vote, VoteCommitLine):
        return "late-commit" if at_ms >= round_.deadline_ms else "commit"
    if juror.commitment is None or not verify_vote_commitment(
            juror.commitment, round_.contract, vote.verdict, vote.salt):
        return "wrong-open"
    return "open" if round_.commit_closed(at_ms) else "early-open"


def apply_vote(round_: VoteRound, did: str, vote: VoteLine, at_ms: int) -> VoteStep:
    """One juror's line, posted at `at_ms`, applied to the round by `TRANSITIONS`.

    `did` is on the panel (the reader keeps everyone else's lines out): a line from anyone else
    is a ValueError, a reader's mistake rather than a stranger's."""
    juror = round_.juror(did)
    if juror is None:
        raise ValueError("a vote line reaches the round only from one of its jurors")
    event = vote_event(round_, juror, vote, at_ms)
    move = TRANSITIONS[(juror.state, event)]
    after = dataclasses.replace(juror, state=move.after,
                                flags=(*juror.flags, move.flag) if move.flag else juror.flags)
    opened_order = round_.opened_order
    if (juror.state, move.after) == ("waiting", "committed"):
        assert isinstance(vote, VoteCommitLine)  # only a commit event commits
        after = dataclasses.replace(after, commitment=vote.commitment)
    elif (juror.state, move.after) == ("committed", "opened"):
        assert not isinstance(vote, VoteCommitLine)  # only an opening opens
        after = dataclasses.replace(after, verdict=vote.verdict)
        opened_order = (*opened_order, did)
    jurors = tuple(after if j.did == did else j for j in round_.jurors)
    return VoteStep(dataclasses.replace(round_, jurors=jurors, opened_order=opened_order),
                    juror.state, event, move)

__all__ = ["JUROR_STATES", "TRANSITIONS", "VOTE_EVENTS", "Juror", "Move", "VoteRound",
           "VoteStep", "apply_vote", "open_round", "vote_event"]
