"""One seed backup restores live deals: the data directory is lost mid-deal, the seed is
restored into a fresh home, and the wallet finds its own signed lines on the board, re-derives
the deal's secrets, and claims."""

from __future__ import annotations

import pytest

from tclk_tui.engine.wallet import Wallet
from tests.engine.helpers import Pair, draft, file_vault, lock_as_payer, payer_offer_accepted


async def _restored(pair: Pair, name: str, tmp_path) -> Wallet:
    old: Wallet = getattr(pair, name)
    backup, did = old.vault.export_seed(), old.did
    await old.close()
    home = tmp_path / f"fresh-{name}"  # the old data directory is gone
    vault = file_vault(home, old.profile)
    vault.restore_seed(backup)
    fresh = await Wallet.open(old.profile, venue_url=pair.venue.url, data_dir=home,
                              vault=vault, clock_ms=pair.clock, rails=pair.rails, follow=False)
    setattr(pair, name, fresh)
    assert fresh.did == did
    return fresh


async def _claim(wallet: Wallet, offer_id: str) -> None:
    deal = wallet.deal(offer_id)
    await deal.check_lock()
    request = deal.request_reveal()
    assert request.allowed, request.blockers
    await deal.confirm(request, typed_code=request.confirm_code)
    assert deal.state.status == "claimed"


async def test_an_acceptor_payee_restored_from_the_seed_claims(pair: Pair, tmp_path):
    offer_id, deal_a, _ = await payer_offer_accepted(pair)
    await lock_as_payer(pair, deal_a)
    bob = await _restored(pair, "bob", tmp_path)
    deal = bob.deal(offer_id)
    assert deal.role == "payee" and deal.state.status == "locked"
    assert bob.keeper.deal_secret(offer_id) is not None
    await _claim(bob, offer_id)


@pytest.mark.parametrize("lock", ["hash", "point"])
async def test_an_offering_payee_restored_from_the_seed_claims(pair: Pair, tmp_path, lock):
    view = await pair.bob.post_offer(draft(role="payee", lock=lock))
    await pair.alice.sync()
    await pair.alice.accept_offer(view.deal_id)
    await pair.sync()
    deal_a = pair.alice.deal(view.deal_id)
    await lock_as_payer(pair, deal_a)
    bob = await _restored(pair, "bob", tmp_path)
    assert bob.deal(view.deal_id).state.status == "locked"
    await _claim(bob, view.deal_id)


async def test_a_restored_payer_finds_its_locked_deal_and_refunds(pair: Pair, tmp_path):
    offer_id, deal_a, _ = await payer_offer_accepted(pair)
    await lock_as_payer(pair, deal_a)
    alice = await _restored(pair, "alice", tmp_path)
    deal = alice.deal(offer_id)
    assert deal.role == "payer" and deal.state.status == "locked"
    pair.clock.ms = deal.offer["refundAfterMs"]
    await deal.confirm(deal.request_refund())
    assert deal.state.status == "refunded"
