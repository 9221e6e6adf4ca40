"""An offer binds to one accept, forever: the first valid accept the offerer's wallet journals.

Public or private, from anyone, before or after a restart, no later accept changes the deal;
records from different rooms are never ordered by their seqs (a private letter's seq counts in
its own `p-` room, which says nothing about the board's order)."""

from __future__ import annotations

import hashlib
import secrets

from tclk_tui import cli_text
from tclk_tui.engine.commands import execute
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.sync import private_deals
from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.builders import make_accept
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.tui.deal_room import summary_text
from tests.engine.helpers import Pair, draft, lock_as_payer, payer_offer_accepted, post_as


def _stranger_accept(stranger: Wallet, offer: dict) -> str:
    """A valid accept line of the stranger's for the offer (its own statement)."""
    statement = "0x" + hashlib.sha256(secrets.token_bytes(32)).hexdigest()
    return encode_frame(make_accept(offer, from_=stranger.did, statement=statement,
                                    nonce=secrets.token_hex(8)))


async def _seal_accept(stranger: Wallet, offer: dict) -> None:
    """The stranger signs its accept for tclk-offers and seals it to the offerer's mailbox."""
    line = _stranger_accept(stranger, offer)
    nonces = stranger.client.nonces
    assert nonces is not None
    nonce = nonces.next(OFFER_ROOM)
    await stranger.mail.send(offer["from"], {
        "kind": "accept", "nonce": str(nonce), "sig": stranger.identity.sign(
            OFFER_ROOM, nonce, line), "line": line})


def _deal_row(wallet: Wallet, offer_id: str) -> tuple:
    row = next(r for r in wallet.journal.deals.all() if r.offer_id == offer_id)
    return row.status, row.contract_id, row.room, row.terms


def _private_settings(wallet: Wallet) -> dict:
    return {k: v for k, v in wallet.journal.settings.all().items()
            if k.startswith(private_deals.SETTING_PRIVATE_ACCEPT)}


async def test_a_strangers_private_accept_never_takes_over_a_locked_public_deal(pair: Pair):
    alice, bob = pair.alice, pair.bob
    offer_id, deal_a, _deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    contract = deal_a.state.contract
    row_before, settings_before = _deal_row(alice, offer_id), _private_settings(alice)
    mallory = await pair.open("mallory")
    await _seal_accept(mallory, deal_a.offer)  # its p- room's seq 1 is "before" bob's accept
    await alice.check_mail()
    deal = alice.deal(offer_id)
    assert (deal.state.contract, deal.state.status) == (contract, "locked")
    assert deal.state.payee_did == bob.did
    assert "lock" not in deal.view().actions
    # The refused accept left the journal as it was.
    assert _deal_row(alice, offer_id) == row_before
    assert _private_settings(alice) == settings_before
    # The screen and the CLI say which accept won and why the other was refused.
    view = deal.view()
    assert view.accepted_by.startswith("the public accept of " + bob.did[:12])
    assert len(view.refused_accepts) == 1
    who, why = view.refused_accepts[0]
    assert who == mallory.did and "bound to the public accept" in why
    assert "accepted by: the public accept of" in summary_text(view).plain
    text = cli_text.status(await execute(alice, "status", {"deal": offer_id}))
    assert "accepted by: the public accept of " + bob.did[:12] in text
    assert "refused accept from " + mallory.did[:12] in text
    # A restart rebuilds the same deal, and the refund of what the rail holds still opens.
    alice = await pair.reopen("alice")
    deal = alice.deal(offer_id)
    assert (deal.state.contract, deal.state.status) == (contract, "locked")
    await _seal_accept(mallory, deal.offer)  # after the restart too
    await alice.check_mail()
    assert (deal.state.contract, deal.state.status) == (contract, "locked")
    assert [who for who, _ in deal.view().refused_accepts] == [mallory.did]
    pair.clock.advance(deal.offer["refundAfterMs"] - pair.clock.ms + 1000)
    request = deal.request_refund()
    assert request.allowed, request.blockers
    await deal.confirm(request)
    assert deal.state.status == "refunded"


async def test_a_private_accept_binds_and_no_later_public_accept_moves_it(pair: Pair):
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(rails="memory"))).deal_id
    await bob.sync()
    await bob.accept_offer(offer_id, private=True)
    await alice.check_mail()
    deal_a = alice.deal(offer_id)
    contract = deal_a.state.contract
    assert deal_a.state.payee_did == bob.did
    # Mallory's accept on the board: a lower board seq than nothing, a later journal entry.
    mallory = await pair.open("mallory")
    await mallory.sync()
    await mallory.client.post(OFFER_ROOM, _stranger_accept(mallory, deal_a.offer))
    await alice.sync()
    assert alice.deal(offer_id).state.contract == contract
    view = alice.deal(offer_id).view()
    assert view.accepted_by.startswith("the private accept of " + bob.did[:12])
    assert [who for who, _ in view.refused_accepts] == [mallory.did]
    await lock_as_payer(pair, alice.deal(offer_id), "memory")
    alice = await pair.reopen("alice")
    deal = alice.deal(offer_id)
    assert (deal.state.contract, deal.state.status) == (contract, "locked")
    assert bob.deal(offer_id).state.status == "locked"


async def test_a_second_private_accept_is_refused_and_the_first_stays(pair: Pair):
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(rails="memory"))).deal_id
    await bob.sync()
    mallory = await pair.open("mallory")
    await bob.accept_offer(offer_id, private=True)
    await _seal_accept(mallory, alice.deal(offer_id).offer)
    await alice.check_mail()
    assert alice.deal(offer_id).state.payee_did == bob.did
    await _seal_accept(mallory, alice.deal(offer_id).offer)
    await alice.check_mail()
    alice = await pair.reopen("alice")
    assert alice.deal(offer_id).state.payee_did == bob.did


async def test_a_privately_bound_offer_is_withdrawn_from_the_board(pair: Pair):
    """Third parties cannot see a private accept: the offerer's wallet withdraws the offer
    (a signed cancel on the board), so no later public acceptor's wallet thinks it won."""
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(rails="memory"))).deal_id
    carol = await pair.open("carol")
    await bob.sync()
    await bob.accept_offer(offer_id, private=True)
    await alice.check_mail()
    await carol.sync()
    assert carol.board.get(offer_id).status == "cancelled"
    try:
        await carol.accept_offer(offer_id)
    except EngineError as exc:
        assert "cancelled" in str(exc)
    else:
        raise AssertionError("carol accepted a withdrawn offer")
    # The withdrawal moves neither side of the private deal.
    await pair.sync()
    assert alice.deal(offer_id).state.status == bob.deal(offer_id).state.status == "accepted"
    assert alice.deal(offer_id).state.contract == bob.deal(offer_id).state.contract


async def test_a_public_acceptor_and_the_offerer_agree_on_a_lost_race(pair: Pair):
    """The acceptor's wallet applies the same rule: a public accept already on the board when
    it sends its private one means the private one never binds (it is refused before sending)."""
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(rails="memory"))).deal_id
    await bob.sync()  # bob's board shows the offer open...
    mallory = await pair.open("mallory")
    await mallory.sync()
    await post_as(mallory, OFFER_ROOM, make_accept(
        alice.deal(offer_id).offer, from_=mallory.did,
        statement="0x" + hashlib.sha256(b"m").hexdigest(), nonce="00c0ffee00c0ffee"))
    try:  # ...but it reads the board before sealing: mallory's accept came first
        await bob.accept_offer(offer_id, private=True)
    except EngineError as exc:
        assert "accepted" in str(exc)
    else:
        raise AssertionError("bob sent a private accept for an offer already accepted")
    await alice.sync()
    assert alice.deal(offer_id).state.payee_did == mallory.did
