"""The reveal gate also honours venue time: a record the venue stamped after refundAfterMs
blocks the reveal even when this computer's clock is behind."""

from __future__ import annotations

import pytest

from tclk_tui.engine.gates import GateRefused
from tests.engine.helpers import Pair, lock_as_payer, payer_offer_accepted


async def test_a_venue_stamp_after_refund_after_ms_blocks_the_reveal(pair: Pair):
    _, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    await deal_b.check_lock()
    assert deal_b.request_reveal().allowed  # on time by both clocks
    refund_after = deal_a.offer["refundAfterMs"]
    pair.venue.venue.config.clock = lambda: (refund_after + 5_000) / 1000  # venue is ahead
    await deal_a.heartbeat("still here")
    await pair.sync()
    assert pair.clock.ms < deal_a.offer["claimByMs"]  # the wallets' clock is far behind
    request = deal_b.request_reveal()
    assert any("venue has already stamped a record after refundAfterMs" in b
               for b in request.blockers)
    with pytest.raises(GateRefused, match="refund window is open"):
        await deal_b.confirm(request, typed_code=request.confirm_code)
    assert pair.memory.status(deal_a.state.contract) == "locked"
    assert deal_b.state.status == "locked"
