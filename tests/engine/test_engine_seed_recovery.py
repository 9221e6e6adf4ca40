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


async def _privately_accepted_and_locked(pair: Pair) -> str:
    """Alice offers to pay; Bob accepts privately (sealed to her mailbox); she binds it,
    withdraws the offer from the board and says so in the deal room; she locks."""
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(rails="memory"))).deal_id
    await bob.sync()
    await bob.accept_offer(offer_id, private=True)
    await alice.check_mail()
    await pair.sync()
    await lock_as_payer(pair, alice.deal(offer_id), "memory")
    return offer_id


async def test_a_restored_offerer_finds_its_privately_accepted_deal_and_refunds(
        pair: Pair, tmp_path):
    """The board holds the offer and the offerer's own withdrawal; only the sealed letter in
    its mailbox says which accept it bound. The restored wallet must not read its own
    withdrawal as the end of a deal whose lock the rail still holds."""
    offer_id = await _privately_accepted_and_locked(pair)
    contract = pair.alice.deal(offer_id).state.contract
    alice = await _restored(pair, "alice", tmp_path)
    await alice.check_mail()
    await alice.sync()
    deal = alice.deal(offer_id)
    assert (deal.role, deal.state.contract, deal.state.status) == ("payer", contract, "locked")
    assert deal.accept_private
    pair.clock.ms = deal.offer["refundAfterMs"]
    await deal.confirm(deal.request_refund())
    assert deal.state.status == "refunded"


async def test_a_restored_offerer_binds_no_strangers_private_accept(pair: Pair, tmp_path,
                                                                   monkeypatch):
    """After the restore, a stranger's sealed accept of the withdrawn offer is read before the
    real one (here the real one is held back): its deal room holds no line of the offerer's,
    so it binds nothing; the real letter, read next, binds the deal."""
    from tclk_tui.engine.sync import private_deals
    from tests.engine.test_engine_one_accept import _seal_accept

    offer_id = await _privately_accepted_and_locked(pair)
    mallory = await pair.stranger("mallory")
    await _seal_accept(mallory, pair.alice.deal(offer_id).offer)
    alice = await _restored(pair, "alice", tmp_path)
    real = private_deals.HANDLERS["accept"]
    held: list = []

    async def strangers_first(wallet, letter):
        if letter.sender == pair.bob.did and not held:
            held.append(letter)
            return "held back by the test"
        return await real(wallet, letter)

    monkeypatch.setitem(private_deals.HANDLERS, "accept", strangers_first)
    await alice.check_mail()
    deal = alice.deal(offer_id)
    assert held and deal.accept_record is None and deal.state.status == "cancelled"
    assert mallory.did in [who for who, _ in deal.view().refused_accepts]
    await real(alice, held[0])
    await alice.sync()
    assert deal.state.payee_did == pair.bob.did and deal.state.status == "locked"
