"""One commit-reveal round of a deal's panel, read from the deal room's signed records (§8.3).

The round is a pure reading of records, so the console and an offline audit of `/export` files
give the same answer. Rules, in venue order:

- only the panel's jurors count; a vote line from anyone else is shown and ignored;
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

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from tclk_tui.engine.arbitration import Tally
from tclk_tui.protocol.arbitration import verify_vote_commitment
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.panel import panel_of, vote_deadline
from tclk_tui.protocol.side_lines import (
    VoteCommitLine,
    VoteRevealLine,
    is_vote_line,
    try_parse_vote,
)
from tclk_tui.protocol.transcript import TranscriptRecord, verify_transcript_record

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
    """The round as the signed records establish it (now_ms: a live reader's clock)."""
    commits: dict[str, tuple[int, str]] = {}
    verdicts: dict[str, str] = {}
    flags: dict[str, list[str]] = {d: [] for d in jurors}
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
        if juror not in flags:
            if juror not in outsiders:  # said once per sender: throwaway DIDs cost nothing
                outsiders.add(juror)
                problems.append(f"{where}: vote line from {juror[:20]}…, who is not on the "
                                "panel, ignored")
            continue
        vote = try_parse_vote(record.line)
        if isinstance(vote, VoteCommitLine):
            if record.timestamp_ms >= deadline_ms:
                problems.append(f"{where}: commitment after the round closed ignored")
                flags[juror].append("late commitment")
            elif juror in commits:
                problems.append(f"{where}: second commitment from one juror ignored")
            else:
                commits[juror] = (record.seq, vote.commitment)
        elif isinstance(vote, VoteRevealLine):
            salt, verdict = vote.salt, vote.verdict
            if juror not in commits:
                problems.append(f"{where}: opening without a commitment ignored")
            elif juror in verdicts:
                problems.append(f"{where}: second opening from one juror ignored")
            elif not verify_vote_commitment(commits[juror][1], contract, verdict, salt):
                problems.append(f"{where}: opening does not match its commitment")
                flags[juror].append("mismatched opening")
            else:
                verdicts[juror] = verdict
                if len(commits) < len(jurors) and record.timestamp_ms < deadline_ms:
                    flags[juror].append("opened before every juror committed")
        else:
            problems.append(f"{where}: unreadable vote line")
    views = tuple(
        JurorVote(did=d, index=i, committed=d in commits,
                  commit_seq=commits[d][0] if d in commits else None,
                  commitment=commits[d][1] if d in commits else None,
                  opened=d in verdicts, verdict=verdicts.get(d), flags=tuple(flags[d]))
        for i, d in enumerate(jurors))
    all_committed = len(commits) == len(jurors)
    closed = all_committed or (now_ms is not None and now_ms >= deadline_ms)
    counts = Counter(verdicts.values())
    return RoundView(contract=contract, deadline_ms=deadline_ms, jurors=views,
                     counts=dict(counts.most_common()), problems=tuple(problems[:MAX_PROBLEMS]),
                     all_committed=all_committed, commit_closed=closed)


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
