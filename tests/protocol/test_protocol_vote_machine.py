"""The vote round is a table: every (juror state, event) has one row, the golden vectors hold
the table and whole rounds applied line by line, and the step is pure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tclk_tui.protocol.side_lines import parse_vote
from tclk_tui.protocol.vote_machine import (
    JUROR_STATES,
    TRANSITIONS,
    VOTE_EVENTS,
    VoteRound,
    apply_vote,
    open_round,
)

GOLDEN = json.loads((Path(__file__).resolve().parents[1] / "vectors"
                     / "tclk-vote-round.golden.json").read_text("utf-8"))


def test_the_table_has_one_row_for_every_state_and_event_and_is_the_golden_one() -> None:
    assert set(TRANSITIONS) == {(s, e) for s in JUROR_STATES for e in VOTE_EVENTS}
    rows = {(r["state"], r["event"]): (r["after"], r["problem"], r["flag"])
            for r in GOLDEN["transitions"]}
    assert rows == {key: (m.after, m.problem, m.flag) for key, m in TRANSITIONS.items()}


def test_a_juror_only_moves_forward_and_only_a_counted_line_moves_them() -> None:
    order = {state: i for i, state in enumerate(JUROR_STATES)}
    for (state, _), move in TRANSITIONS.items():
        assert order[move.after] in (order[state], order[state] + 1)
        assert (move.after != state) == (move.problem is None)  # a problem: the line is ignored


def _replay(vector: dict[str, Any]) -> tuple[VoteRound, list[dict[str, Any]]]:
    round_ = open_round(GOLDEN["contract"], tuple(vector["jurors"]), GOLDEN["deadline_ms"])
    steps = []
    for line in vector["lines"]:
        step = apply_vote(round_, line["juror"], parse_vote(line["line"]), line["at_ms"])
        round_ = step.round
        steps.append({"before": step.before, "event": step.event, "after": step.move.after,
                      "problem": step.move.problem, "flag": step.move.flag})
    return round_, steps


@pytest.mark.parametrize("vector", GOLDEN["rounds"], ids=lambda v: v["name"])
def test_golden_round(vector: dict[str, Any]) -> None:
    round_, steps = _replay(vector)
    assert steps == vector["steps"]
    want = vector["round"]
    assert [{"did": j.did, "state": j.state, "commitment": j.commitment, "verdict": j.verdict,
             "flags": list(j.flags)} for j in round_.jurors] == want["jurors"]
    assert round_.all_committed == want["all_committed"]
    assert list(round_.tally().items()) == list(want["tally"].items())  # in order
    deadline = GOLDEN["deadline_ms"]
    assert {"without a clock": round_.commit_closed(None),
            "before the deadline": round_.commit_closed(deadline - 1),
            "at the deadline": round_.commit_closed(deadline)} == want["commit_closed"]


def test_every_golden_event_is_met_and_every_row_is_reached() -> None:
    reached = {(s["before"], s["event"]) for v in GOLDEN["rounds"] for s in v["steps"]}
    # The rows no round of distinct lines reaches: an opener who never committed cannot open
    # rightly, and an opened juror's lines are all second ones.
    assert reached >= {("waiting", "commit"), ("waiting", "late-commit"),
                       ("waiting", "wrong-open"), ("committed", "commit"),
                       ("committed", "open"), ("committed", "early-open"),
                       ("committed", "wrong-open"), ("opened", "commit"), ("opened", "open")}


def test_the_step_is_pure_and_keeps_strangers_out() -> None:
    vector = GOLDEN["rounds"][0]
    start = open_round(GOLDEN["contract"], tuple(vector["jurors"]), GOLDEN["deadline_ms"])
    line = vector["lines"][0]
    vote = parse_vote(line["line"])
    first = apply_vote(start, line["juror"], vote, line["at_ms"])
    assert start == open_round(GOLDEN["contract"], tuple(vector["jurors"]),
                               GOLDEN["deadline_ms"])  # the round given is unchanged
    assert apply_vote(start, line["juror"], vote, line["at_ms"]) == first  # same in, same out
    with pytest.raises(ValueError, match="jurors"):
        apply_vote(start, "someone-else", vote, line["at_ms"])
