"""Refunds: blocked until refundAfterMs, allowed after; the engine and the rail both re-check."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from tclk_tui.engine.gates import GateRefused
from tests.engine.helpers import Pair, assert_settled, lock_as_payer, payer_offer_accepted


@pytest.mark.parametrize("rail", ["memory", "paper"])
async def test_refund_blocked_before_the_window_and_settles_after(pair: Pair, rail: str):
    offer_id, deal_a, _ = await payer_offer_accepted(pair, rails=rail)
    await lock_as_payer(pair, deal_a, rail)
    refund_after = deal_a.offer["refundAfterMs"]

    pair.clock.ms = refund_after - 1
    early = deal_a.request_refund()
    opens = datetime.fromtimestamp(refund_after / 1000, tz=UTC).strftime("%H:%M UTC")
    assert early.blockers == (f"the refund window is not open yet: it opens at {opens} "
                              "(in 1s)",)
    with pytest.raises(GateRefused, match="not open yet"):
        await deal_a.confirm(early)
    # A request forged to look allowed is not one the engine stated: refused.
    forged = dataclasses.replace(early, blockers=())
    with pytest.raises(GateRefused, match="no request this wallet stated"):
        await deal_a.confirm(forged)
    assert deal_a.state.status == "locked"

    pair.clock.ms = refund_after
    request = deal_a.request_refund()
    assert request.allowed, request.blockers
    await deal_a.confirm(request)
    assert deal_a.state.status == "refunded"
    if rail == "memory":
        assert pair.memory.status(deal_a.state.contract) == "refunded"
    else:
        record = await pair.alice.rails["paper"].read(deal_a.state.contract)
        assert record is not None and record.status == "refunded"
    await assert_settled(pair, offer_id, "refunded")


async def test_the_payee_cannot_refund(pair: Pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    pair.clock.ms = deal_a.offer["refundAfterMs"] + 1
    request = deal_b.request_refund()
    assert "only the payer refunds" in request.blockers
    with pytest.raises(GateRefused):
        await deal_b.confirm(request)


async def test_the_rail_refuses_an_early_refund_even_when_the_wallet_clock_is_ahead(pair: Pair):
    _, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    refund_after = deal_a.offer["refundAfterMs"]
    pair.memory._clock = lambda: refund_after - 1  # the rail's own clock is behind
    pair.clock.ms = refund_after + 1
    request = deal_a.request_refund()
    assert request.allowed
    with pytest.raises(GateRefused, match="rail refused the refund"):
        await deal_a.confirm(request)
    await pair.sync()
    assert deal_a.state.status == "locked"
    assert not any(r.type == "refund" for r in deal_a.view().records)
    assert pair.memory.status(deal_a.state.contract) == "locked"
