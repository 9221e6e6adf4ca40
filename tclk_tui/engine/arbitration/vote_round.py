"""One commit-reveal round of a deal's panel, read from the deal room's signed records (§8.3).

The round is a pure reading of records, so the console and an offline audit of `/export` files
give the same answer. This reader keeps out what is no vote: a line with a bad signature, an
unreadable one, and one from anyone not on the panel (shown once per sender and ignored). Each
juror's vote line then goes, in venue order, through the protocol's round table
(`protocol.vote_machine`), which holds the order of a round:

- a commitment at or after the round's deadline is late and ignored, as is a second one;
- an opening counts only when it opens that juror's own commitment; a mismatch is flagged;
- an opening posted while some juror had not committed and the deadline had not passed is
  flagged as early (it let later jurors see it before committing), though it still counts.

The commit phase is closed once every juror has committed or the deadline has passed; until
then this wallet refuses to post its own opening. This is the one reading of a round: the
console, `round`, `tally`, the offline audit and the evidence bundle all call `offer_round`
(or `count_votes`, which reads it for `tally`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from tclk_tui.engine.arbitration.desk import Tally
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.panel import panel_of, vote_deadline
from tclk_tui.protocol.side_lines import is_vote_line, try_parse_vote
from tclk_tui.protocol.transcript import TranscriptRecord, verify_transcript_record
from tclk_tui.protocol.vote_machine import apply_vote, open_round

MAX_PROBLEMS = 200  # a room full of junk vote lines is not a list without end


@dataclass(frozen=True, slots=True)
class JurorVote:
    did: str
    index: int
    committed: bool = False
    commit_seq: int | None = None
    commitment: str | None = None
    opened: bool = False
    verdict: str | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RoundView:
    contract: str
    deadline_ms: int
    jurors: tuple[JurorVote, ...]
    counts: dict[str, int]
    problems: tuple[str, ...]
    all_committed: bool
    commit_closed: bool

    @property
    def committed(self) -> tuple[str, ...]:
        return tuple(j.did for j in self.jurors if j.committed)

    @property
    def opened(self) -> tuple[str, ...]:
        return tuple(j.did for j in self.jurors if j.opened)

    def to_dict(self) -> dict:
        return {"contract": self.contract, "deadline_ms": self.deadline_ms,
                "all_committed": self.all_committed, "commit_closed": self.commit_closed,
                "counts": dict(self.counts), "problems": list(self.problems),
                "jurors": [{"did": j.did, "index": j.index, "committed": j.committed,
                            "opened": j.opened, "verdict": j.verdict, "flags": list(j.flags)}
                           for j in self.jurors]}


def read_round(contract: str, records: Iterable[TranscriptRecord], jurors: tuple[str, ...],
               deadline_ms: int, now_ms: int | None = None) -> RoundView:
    """The round as the signed records establish it (now_ms: a live reader's clock): each
    juror's readable, signed vote line applied in venue order by the protocol's round table
    (`protocol.vote_machine`)."""
    round_ = open_round(contract, jurors, deadline_ms)
    commit_seq: dict[str, int] = {}
    problems: list[str] = []
    outsiders: set[str] = set()
    for record in records:
        if not is_vote_line(record.line):
            continue
        where = f"seq {record.seq}"
        if not verify_transcript_record(record).ok:
            problems.append(f"{where}: vote line with a bad signature ignored")
            continue
        juror = record.sender
        if round_.juror(juror) is None:
            if juror not in outsiders:  # said once per sender: throwaway DIDs cost nothing
                outsiders.add(juror)
                problems.append(f"{where}: vote line from {juror[:20]}…, who is not on the "
                                "panel, ignored")
            continue
        vote = try_parse_vote(record.line)
        if vote is None:
            problems.append(f"{where}: unreadable vote line")
            continue
        step = apply_vote(round_, juror, vote, record.timestamp_ms)
        round_ = step.round
        if step.move.problem is not None:
            problems.append(f"{where}: {step.move.problem}")
        if (step.before, step.move.after) == ("waiting", "committed"):
            commit_seq[juror] = record.seq
    views = tuple(
        JurorVote(did=j.did, index=i, committed=j.state != "waiting",
                  commit_seq=commit_seq.get(j.did), commitment=j.commitment,
                  opened=j.state == "opened", verdict=j.verdict, flags=j.flags)
        for i, j in enumerate(round_.jurors))
    return RoundView(contract=contract, deadline_ms=deadline_ms, jurors=views,
                     counts=round_.tally(), problems=tuple(problems[:MAX_PROBLEMS]),
                     all_committed=round_.all_committed,
                     commit_closed=round_.commit_closed(now_ms))


def offer_round(offer: Mapping, contract: str, records: Iterable[TranscriptRecord],
                now_ms: int | None = None) -> RoundView | None:
    """The round of the panel an offer names (None: it names none), a committee or a lone
    arbiter (SPEC §8.3: whatever the panel): its members, its deadline. Every reader of a
    case's round (the console, `round`, `tally`, the offline audit, the evidence bundle)
    comes through here."""
    try:
        panel = panel_of(offer)
    except TclkError:
        return None
    if panel is None:
        return None
    return read_round(contract, records, panel.members, vote_deadline(offer, panel), now_ms)


def count_votes(contract: str, records: list[TranscriptRecord], offer: Mapping | None,
                jurors: Collection[str] | None = None) -> Tally:
    """`tally`: the round of the contract's offer read as `offer_round` reads it. An offer
    that names no panel counts the `jurors` given, under the offer's claimByMs; without the
    offer nothing can be counted (neither the panel nor the deadline is known)."""
    given = tuple(dict.fromkeys(j.strip() for j in jurors or () if j.strip()))
    if offer is None:
        return Tally(contract=contract, problems=(
            "the offer of this contract is not known to this wallet: the panel and the vote "
            "deadline cannot be read, so no vote is counted",))
    problems: list[str] = []
    view = offer_round(offer, contract, records)
    if view is not None:
        if given and set(given) != {j.did for j in view.jurors}:
            problems.append("the offer names its panel: its members are counted, not the "
                            "jurors given")
    elif given:
        view = read_round(contract, records, given, int(offer["claimByMs"]))
    else:
        return Tally(contract=contract, problems=(
            "no panel named: the offer names no panel and no jurors were given, so no vote "
            "is counted (name the jurors)",))
    return Tally(contract=contract,
                 commits={j.did: j.commitment for j in view.jurors if j.commitment},
                 reveals={j.did: j.verdict for j in view.jurors if j.verdict is not None},
                 counts=dict(view.counts), problems=(*problems, *view.problems))


__all__ = ["JurorVote", "RoundView", "count_votes", "offer_round", "read_round"]
