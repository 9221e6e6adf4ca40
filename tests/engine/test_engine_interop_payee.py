"""Interop is not stricter than the SPEC where that costs the payee: a pre-signature on a rail
that settles by secret is a note, never a blocker; a payee-role offer without its statement
awaits it instead of showing open; a settled deal's room is read until both receipts are in."""

from __future__ import annotations

from tclk_tui.protocol.adaptor import pre_sign
from tclk_tui.protocol.builders import make_lock, make_offer
from tclk_tui.protocol.naming import OFFER_ROOM
from tests.engine.helpers import Pair, payer_offer_accepted, post_as, reveal_as_payee


async def test_a_presig_that_does_not_verify_is_a_note_on_a_rail_that_settles_by_secret(
        pair: Pair):
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, lock="point", rails="memory")
    ref = await pair.memory.lock(deal_a.terms())
    bogus = pre_sign("0x" + "11" * 32, "0x" + "00" * 32, deal_a.state.statement)
    assert bogus is not None
    await post_as(pair.alice, deal_a.room, dict(make_lock(
        from_=pair.alice.did, contract=deal_a.state.contract, rail="memory", ref=ref,
        presig=dict(bogus))))
    await pair.sync()
    request = deal_b.request_reveal()
    assert request.allowed, request.blockers
    [note] = [f for f in request.facts if f.label == "adaptor pre-signature"]
    assert note.ok is None and "settles by secret" in note.detail
    await reveal_as_payee(pair, deal_b)
    assert pair.alice.deal(offer_id).state.status == "claimed"


async def test_a_payee_offer_awaits_its_statement_before_it_shows_open(pair: Pair):
    alice, bob = pair.alice, pair.bob
    offer = make_offer(from_=alice.did, role="payee", amount="7", asset="FLOP", lock="hash",
                       rails=["memory"], claim_by_ms=pair.clock.ms + 3_600_000,
                       refund_after_ms=pair.clock.ms + 7_200_000,
                       expires_ms=pair.clock.ms + 600_000, nonce="0123456789abcdef")
    await post_as(alice, OFFER_ROOM, dict(offer))  # a payee offer whose statement never came
    await bob.sync()
    assert bob.board.get(offer["id"]).status == "awaiting"
    from tclk_tui.protocol.side_lines import encode_statement

    await alice.client.post(OFFER_ROOM, encode_statement(offer["id"], "0x" + "ab" * 32))
    await bob.sync()
    assert bob.board.get(offer["id"]).status == "open"


async def test_a_settled_deals_room_is_read_until_both_receipts_are_in(pair: Pair):
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    request = deal_a.request_lock("memory")
    await deal_a.confirm(request)
    await pair.sync()
    await reveal_as_payee(pair, deal_b)
    assert deal_a.state.status == "claimed"
    await deal_b.receipt()  # the payee's receipt lands after the payer saw the claim
    alice = await pair.reopen("alice")  # a restart: the deal is terminal in its journal
    deal = alice.deal(offer_id)
    assert any(r.type == "receipt" and r.sender == pair.bob.did for r in deal.view().records)
