"""An offer binds to one accept, forever, and both sides' wallets agree on which: races the
existing cases do not run (a private accept losing to a public one that landed after it was
sealed, a payer-acceptor who would lock for a deal the offerer does not have)."""

from __future__ import annotations

import asyncio

import pytest

from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.sync import private_deals
from tests.engine.helpers import Pair, draft, lock_as_payer


async def test_a_private_accept_that_lost_to_a_later_public_one_never_locks(pair: Pair):
    """Bob reads the board (open), seals his private accept; Carol, who cannot see it,
    accepts on the board; Alice reads the board before she opens the letter, so Carol's binds.
    Bob, the payer, must not lock for a deal Alice does not have."""
    alice, bob = pair.alice, pair.bob
    carol = await pair.open("carol")
    offer_id = (await alice.post_offer(draft(role="payee", rails="memory"))).deal_id
    await bob.sync()
    await carol.sync()
    await bob.accept_offer(offer_id, private=True)
    await carol.accept_offer(offer_id)
    await alice.check_mail()
    await alice.sync()
    assert alice.deal(offer_id).state.payer_did == carol.did
    await bob.sync()
    await bob.check_mail()
    lost = bob.deal(offer_id)
    request = lost.request_lock("memory")
    assert any("not confirmed" in b for b in request.blockers), request.blockers
    with pytest.raises(GateRefused):
        await lost.confirm(request)
    assert pair.memory.status(lost.state.contract) is None, (
        "bob locked for a contract the offerer never bound", lost.view().accepted_by)


async def test_a_privately_accepting_payer_locks_once_the_offerer_bound_it(pair: Pair):
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(role="payee", rails="memory"))).deal_id
    await bob.sync()
    await bob.accept_offer(offer_id, private=True)
    deal_b = bob.deal(offer_id)
    assert any("not confirmed" in b for b in deal_b.request_lock("memory").blockers)
    await alice.check_mail()
    await bob.sync()
    await lock_as_payer(pair, deal_b, "memory")
    assert alice.deal(offer_id).state.status == "locked"


async def test_a_public_accept_landing_before_the_withdrawal_never_locks(pair: Pair,
                                                                        monkeypatch):
    """Alice binds Bob's private accept; Mallory's public accept lands on the board before
    Alice's withdrawal does. Mallory's wallet sees her accept first on the board, but the
    withdrawal says a private accept bound the offer: she must not lock."""
    alice, bob = pair.alice, pair.bob
    mallory = await pair.stranger("mallory")
    offer_id = (await alice.post_offer(draft(role="payee", rails="memory"))).deal_id
    await bob.sync()
    await mallory.sync()
    await bob.accept_offer(offer_id, private=True)
    real_withdraw = private_deals._withdraw

    async def raced(wallet, deal):
        await mallory.accept_offer(offer_id)  # lands between the bind and the withdrawal
        await real_withdraw(wallet, deal)

    monkeypatch.setattr(private_deals, "_withdraw", raced)
    await alice.check_mail()
    assert alice.deal(offer_id).state.payer_did == bob.did
    await mallory.sync()
    deal_m = mallory.deal(offer_id)
    request = deal_m.request_lock("memory")
    assert any("withdrawn" in b for b in request.blockers), request.blockers
    with pytest.raises(GateRefused):
        await deal_m.confirm(request)
    assert pair.memory.status(deal_m.state.contract) is None


async def test_the_offerers_confirmation_lost_to_a_crash_is_sent_on_restart(pair: Pair,
                                                                          monkeypatch):
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(role="payee", rails="memory"))).deal_id
    await bob.sync()
    await bob.accept_offer(offer_id, private=True)

    async def crashed(wallet, deal):
        return None

    monkeypatch.setattr(private_deals, "_confirm_bound", crashed)
    await alice.check_mail()
    monkeypatch.undo()
    await bob.sync()
    assert bob.deal(offer_id).request_lock("memory").blockers
    await pair.reopen("alice")
    await bob.sync()
    await lock_as_payer(pair, bob.deal(offer_id), "memory")


@pytest.mark.parametrize("private", [False, True])
async def test_two_accepts_of_one_offer_at_once_accept_it_once(pair: Pair, private: bool):
    """A double click, or the app and a CLI call at once: one accept, one secret."""
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(rails="memory"))).deal_id
    await bob.sync()
    outcomes = await asyncio.gather(bob.accept_offer(offer_id, private=private),
                                    bob.accept_offer(offer_id, private=private),
                                    return_exceptions=True)
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1, outcomes
    await alice.check_mail()
    await pair.sync()
    deal_a = alice.deal(offer_id)
    assert deal_a.state.payee_did == bob.did
    await lock_as_payer(pair, deal_a, "memory")
    deal_b = bob.deal(offer_id)
    request = deal_b.request_reveal()
    assert request.allowed, request.blockers
