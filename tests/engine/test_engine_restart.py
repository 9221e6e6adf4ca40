"""A wallet closed mid-deal and reopened on the same data dir picks the deal up from its journal."""

from __future__ import annotations

import pytest

from tclk_tui.engine.deal import DealSession
from tests.engine.helpers import (
    Pair,
    assert_settled,
    lock_as_payer,
    payer_offer_accepted,
    reveal_as_payee,
)


def _snapshot(deal: DealSession) -> tuple:
    view = deal.view()
    return (deal.state, deal.role, view.status, view.contract, view.actions,
            [(r.room, r.seq, r.type, r.ok, r.reason) for r in view.records])


@pytest.mark.parametrize("who", ["alice", "bob"])
@pytest.mark.parametrize("lock", ["hash", "point"])
async def test_restart_after_accept_then_complete(pair: Pair, who: str, lock: str):
    offer_id, *_ = await payer_offer_accepted(pair, lock=lock, rails="memory")
    before = _snapshot(getattr(pair, who).deal(offer_id))
    wallet = await pair.reopen(who)
    assert [d.deal_id for d in wallet.deals()] == [offer_id]
    assert _snapshot(wallet.deal(offer_id)) == before
    await lock_as_payer(pair, pair.alice.deal(offer_id), "memory")
    await reveal_as_payee(pair, pair.bob.deal(offer_id))
    await assert_settled(pair, offer_id, "claimed")


@pytest.mark.parametrize("who", ["alice", "bob"])
@pytest.mark.parametrize("lock", ["hash", "point"])
async def test_restart_after_lock_then_complete(pair: Pair, who: str, lock: str):
    offer_id, deal_a, _ = await payer_offer_accepted(pair, lock=lock, rails="paper")
    await lock_as_payer(pair, deal_a, "paper")
    before = _snapshot(getattr(pair, who).deal(offer_id))
    wallet = await pair.reopen(who)
    deal = wallet.deal(offer_id)
    assert _snapshot(deal) == before
    if who == "bob":
        assert deal.lock_check is not None and deal.lock_check.verified
        if lock == "point":
            assert deal.lock_check.presig_ok is True
    await reveal_as_payee(pair, pair.bob.deal(offer_id))
    await assert_settled(pair, offer_id, "claimed")


@pytest.mark.parametrize("lock", ["hash", "point"])
async def test_settled_deals_survive_a_restart_of_both_wallets(pair: Pair, lock: str):
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, lock=lock, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    await reveal_as_payee(pair, deal_b)
    before = {who: _snapshot(getattr(pair, who).deal(offer_id)) for who in ("alice", "bob")}
    for who in ("alice", "bob"):
        wallet = await pair.reopen(who)
        assert _snapshot(wallet.deal(offer_id)) == before[who]
    await assert_settled(pair, offer_id, "claimed")


async def test_restart_before_the_payer_refunds(pair: Pair):
    offer_id, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    pair.clock.ms = deal_a.offer["refundAfterMs"]
    alice = await pair.reopen("alice")
    deal = alice.deal(offer_id)
    await deal.confirm(deal.request_refund())
    await assert_settled(pair, offer_id, "refunded")
