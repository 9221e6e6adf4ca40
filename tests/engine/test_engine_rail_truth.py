"""The rail, not the transcript, decides whether money can come back.

Two transcripts that refuse a lock the rail nevertheless holds (a cancel that raced the lock,
a lock frame the venue stamped after refundAfterMs), a non-canonical rail spelling, the lock
gate's margin, and the explicit UNKNOWN status with its reconcile action.
"""

from __future__ import annotations

import pytest

from tclk_tui.engine.commands import execute
from tclk_tui.engine.deal import LOCK_MARGIN_MS, UNKNOWN
from tclk_tui.engine.gates import GateRefused
from tests.engine.helpers import Pair, payer_offer_accepted, post_as


async def _cancel_races_the_lock(pair: Pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await deal_b.confirm(deal_b.request_cancel())  # Bob cancels; Alice has not seen it yet
    request = deal_a.request_lock("memory")
    assert request.allowed, request.blockers
    await deal_a.confirm(request)  # the rail takes the funds, the lock frame lands second
    await pair.sync()
    assert deal_a.state.status == "cancelled"
    assert pair.memory.status(deal_a.state.contract) == "locked"
    return deal_a


async def test_a_cancel_that_raced_the_lock_still_refunds_what_the_rail_holds(pair: Pair):
    deal_a = await _cancel_races_the_lock(pair)
    await deal_a.check_rail()
    view = deal_a.view()
    assert view.status == UNKNOWN and view.transcript_status == "cancelled"
    assert view.rail_status == "locked" and "cancelled" in view.disagreement
    assert "reconcile" in view.actions and "refund" not in view.actions
    early = deal_a.request_refund()
    assert len(early.blockers) == 1 and "not open yet" in early.blockers[0]

    pair.clock.ms = deal_a.offer["refundAfterMs"]
    request = deal_a.request_refund()
    assert request.allowed, request.blockers
    assert "refund" in deal_a.view().actions
    await deal_a.confirm(request)
    assert pair.memory.status(deal_a.state.contract) == "refunded"
    assert deal_a.view().disagreement  # the transcript still says cancelled: told, not hidden


async def test_a_lock_frame_stamped_after_refund_after_ms_still_refunds(pair: Pair):
    _, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    terms = deal_a.terms()
    ref = await pair.memory.lock(terms)
    pair.clock.ms = deal_a.offer["refundAfterMs"] + 1  # the venue stamps the frame late
    await post_as(pair.alice, deal_a.room, {"type": "lock", "from": pair.alice.did,
                                            "contract": terms.contract, "rail": "memory",
                                            "ref": ref})
    await pair.sync()
    assert deal_a.state.status == "accepted"
    await deal_a.reconcile()
    assert deal_a.view().status == UNKNOWN
    request = deal_a.request_refund()
    assert request.allowed, request.blockers
    await deal_a.confirm(request)
    assert pair.memory.status(terms.contract) == "refunded"


async def test_refund_is_refused_when_the_rail_holds_nothing(pair: Pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await deal_b.confirm(deal_b.request_cancel())
    await pair.sync()
    pair.clock.ms = deal_a.offer["refundAfterMs"] + 1
    with pytest.raises(GateRefused, match="cancelled, not locked"):
        await deal_a.confirm(deal_a.request_refund())
    assert deal_a.view().status == "cancelled" and not deal_a.view().disagreement


async def test_a_non_canonical_rail_spelling_is_normalised_before_the_rail(pair: Pair):
    _, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    request = deal_a.request_lock("MEMORY")
    assert request.allowed, request.blockers
    await deal_a.confirm(request)
    await pair.sync()
    assert deal_a.state.status == "locked" and deal_a.state.rail == "memory"


async def test_the_lock_gate_keeps_a_margin_before_refund_after_ms(pair: Pair):
    _, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    pair.clock.ms = deal_a.offer["refundAfterMs"] - LOCK_MARGIN_MS + 1
    request = deal_a.request_lock("memory")
    assert any("before refundAfterMs" in b for b in request.blockers)
    with pytest.raises(GateRefused):
        await deal_a.confirm(request)
    assert pair.memory.status(deal_a.state.contract) is None


async def test_status_and_reconcile_commands_show_unknown_with_both_sides(pair: Pair):
    deal_a = await _cancel_races_the_lock(pair)
    status = await execute(pair.alice, "status", {"deal": deal_a.deal_id})
    assert status["status"] == UNKNOWN
    assert status["transcript_status"] == "cancelled" and status["rail_status"] == "locked"
    assert "reconcile" in status["actions"]
    pair.clock.ms = deal_a.offer["refundAfterMs"]
    again = await execute(pair.alice, "reconcile", {"deal": deal_a.deal_id})
    assert "refund" in again["actions"]
    done = await execute(pair.alice, "refund", {"deal": deal_a.deal_id, "yes": True})
    assert pair.memory.status(deal_a.state.contract) == "refunded", done
