"""A running fold, grown record by record in any order, is the full fold of what it holds."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.transcript import (
    RunningFold,
    TranscriptRecord,
    _FoldScope,
    fold_transcript,
    verify_transcript_record,
)

from .test_protocol_fold_paths import bindings, deal, mutated_deals
from .test_protocol_transcript import any_record


def grow(records: list[Any], order: list[int], binding: str, *, vouch: bool) -> None:
    """Insert `records` in `order` (indices into the final list), each where it stands among
    those already in; after every insertion the running fold is the full fold of those."""
    running = RunningFold(room_binding=binding)
    placed: list[int] = []
    for index in order:
        position = sum(1 for other in placed if other < index)
        placed.insert(position, index)
        record = records[index]
        verified = vouch and verify_transcript_record(record).ok
        running.insert(position, record, verified=verified)
        expected = fold_transcript([records[i] for i in placed], binding)
        assert running.fold() == expected
        assert running.state == expected.state
        assert running.last_step == (expected.steps[-1] if expected.steps else None)
    assert running.records == records


@st.composite
def grown(draw: st.DrawFn, records: st.SearchStrategy[list[Any]]) -> tuple[list[Any], list[int]]:
    """Records and an order to insert them in: mostly at the end, now and then earlier."""
    chosen = draw(records)
    order = list(range(len(chosen)))
    for _ in range(draw(st.integers(0, 3))):
        if len(order) > 1:
            at, to = draw(st.integers(0, len(order) - 1)), draw(st.integers(0, len(order) - 1))
            order.insert(to, order.pop(at))
    if draw(st.booleans()):
        order = draw(st.permutations(order))
    return chosen, order


SLOW = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SLOW
@given(grown(mutated_deals()), bindings, st.booleans())
def test_a_deal_grown_in_any_order_folds_as_a_whole_fold(case, binding, vouch) -> None:
    records, order = case
    grow(records, order, binding, vouch=vouch)


@SLOW
@given(grown(st.lists(any_record, max_size=12)), bindings, st.booleans())
def test_any_records_grown_in_any_order_fold_as_a_whole_fold(case, binding, vouch) -> None:
    records, order = case
    grow(records, order, binding, vouch=vouch)


def test_a_late_record_before_the_lock_is_judged_with_what_follows_it() -> None:
    """The offer, accept and lock arrive after the heartbeats and the reveal: each insertion
    moves the state under everything behind it, which is judged again."""
    records = deal(3)
    grow(records, [3, 4, 5, 6, 0, 1, 2], "strict", vouch=False)
    running = RunningFold([records[i] for i in (0, 1, 3, 4, 5, 6)])
    assert running.state is not None and running.state.status == "accepted"
    running.insert(2, records[2])
    assert running.state.status == "claimed"
    assert running.fold() == fold_transcript(records)


def test_a_record_at_the_end_costs_one_check_and_one_step(monkeypatch) -> None:
    records = deal(50)
    running = RunningFold(records[:-1])
    calls: list[str] = []
    check, judge = _FoldScope.check, _FoldScope.judge
    monkeypatch.setattr(_FoldScope, "check", lambda self, *a: calls.append("check")
                        or check(self, *a))
    monkeypatch.setattr(_FoldScope, "judge", lambda self, *a: calls.append("judge")
                        or judge(self, *a))
    running.append(records[-1])
    assert calls == ["check", "judge"]
    assert running.fold() == fold_transcript(records)


def test_a_vouched_record_is_not_verified_again(monkeypatch) -> None:
    from tclk_tui.protocol import transcript

    records = deal(3)
    expected = fold_transcript(records)
    running = RunningFold(records[:-1])
    monkeypatch.setattr(transcript, "_signature_opens", lambda *args: pytest.fail("verified"))
    monkeypatch.setattr(transcript, "_verify_fields", lambda *args: pytest.fail("verified"))
    running.append(records[-1], verified=True)
    assert running.fold() == expected


def test_a_position_outside_the_fold_is_refused() -> None:
    with pytest.raises(IndexError):
        RunningFold().insert(1, TranscriptRecord("r", 1, 1, "s", None, None, "x"))
