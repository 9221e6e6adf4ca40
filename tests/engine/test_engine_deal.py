"""Two wallets complete deals over the rehearsal venue; every step is the fold of signed records."""

from __future__ import annotations

import pytest

from tclk_tui.engine.gates import GateRefused
from tests.engine.helpers import (
    Pair,
    assert_settled,
    draft,
    lock_as_payer,
    payer_offer_accepted,
)


@pytest.mark.parametrize("rail", ["paper", "memory"])
async def test_hash_lock_deal_payer_offer_ends_claimed_everywhere(pair: Pair, rail: str):
    alice, bob = pair.alice, pair.bob
    view = await alice.post_offer(draft(rails=rail))
    offer_id = view.deal_id
    await bob.sync()
    assert bob.board.get(offer_id).status == "open"
    accepted = await bob.accept_offer(offer_id)
    assert accepted.status == "accepted" and accepted.role == "payee"
    await alice.sync()
    deal_a = alice.deal(offer_id)
    assert deal_a.state.status == "accepted"
    assert deal_a.view().actions >= {"lock", "cancel"}

    await lock_as_payer(pair, deal_a, rail)
    deal_b = bob.deal(offer_id)
    assert deal_b.state.status == "locked"
    assert deal_b.lock_check is not None and deal_b.lock_check.verified
    reveal = deal_b.request_reveal()
    assert reveal.allowed, reveal.blockers
    with pytest.raises(GateRefused, match="type"):
        await deal_b.confirm(reveal, typed_code="zzzz")
    assert deal_b.state.status == "locked"
    await deal_b.confirm(reveal, typed_code=reveal.confirm_code)
    assert deal_b.state.status == "claimed"

    await assert_settled(pair, offer_id, "claimed")
    if rail == "memory":
        assert pair.memory.status(deal_a.state.contract) == "claimed"
    # Receipts are acknowledgements: they leave the terminal state where it is.
    await deal_a.receipt()
    await deal_b.receipt()
    await assert_settled(pair, offer_id, "claimed")
    # One receipt per deal: it is no longer offered, and asking again says why.
    assert "receipt" not in deal_a.view().actions
    with pytest.raises(GateRefused, match="already posted"):
        await deal_a.receipt()


async def test_early_reveal_is_refused_before_lock(pair: Pair):
    _, _, deal_b = await payer_offer_accepted(pair)
    request = deal_b.request_reveal()
    assert not request.allowed
    assert any("not locked" in b for b in request.blockers)
    with pytest.raises(GateRefused):
        await deal_b.confirm(request, typed_code=request.confirm_code)
