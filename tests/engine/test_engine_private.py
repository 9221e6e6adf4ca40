"""Private channels between wallets: the DID note's signed e2e: record, sealed deliveries, and
an accept delivered to the offerer's mailbox instead of the board (SPEC §2)."""

from __future__ import annotations

import pytest

from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.events import Notice
from tclk_tui.engine.sync import private_deals
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.naming import OFFER_ROOM, did_note
from tclk_tui.technocore.e2e import choose_record
from tests.engine.helpers import Pair, draft, lock_as_payer, reveal_as_payee


def notices(queue) -> list[str]:
    texts = []
    while not queue.empty():
        event = queue.get_nowait()
        if isinstance(event, Notice):
            texts.append(event.text)
    return texts


async def every_room_text(pair: Pair, client) -> str:
    """Every line of every room the venue holds, as its export serves it."""
    texts = []
    for room in list(pair.venue.venue.rooms):
        texts += [r.text for r in (await client.export(room)).records]
    return "\n".join(texts)


async def test_an_open_wallet_publishes_rails_mailbox_and_a_signed_e2e_record(pair: Pair):
    note = await pair.bob.client.read_did_note(pair.alice.did)
    assert note is not None and note.names_did and note.rails == ("memory", "paper")
    record = choose_record(pair.alice.did, note.value, seen_nonce=None)
    assert record.mailbox == pair.alice.mail.mailbox
    assert note.mailbox is None  # the bare hint is the agents' JSON-RPC mailbox, not ours
    assert record.x25519 == pair.alice.mail.x25519_public
    # Derived from the seed: the same profile reopened publishes the same record.
    mailbox = pair.alice.mail.mailbox
    alice = await pair.reopen("alice")
    assert alice.mail.mailbox == mailbox


async def test_a_letter_arrives_sealed_and_the_venue_sees_only_ciphertext(pair: Pair):
    await pair.alice.mail.send(pair.bob.did, {"kind": "hello", "text": "secret words " * 400})
    letters = await pair.bob.mail.poll()
    assert [letter.body["text"] for letter in letters] == ["secret words " * 400]
    assert letters[0].sender == pair.alice.did
    assert "secret words" not in await every_room_text(pair, pair.bob.client)


async def test_rotation_moves_the_mailbox_and_a_replayed_old_record_is_refused(pair: Pair):
    alice, bob = pair.alice, pair.bob
    old_note = (await bob.client.read_did_note(alice.did)).value
    await bob.mail.send(alice.did, {"kind": "hello"})
    await alice.mail.rotate(sorted(alice.rails))
    await bob.mail.send(alice.did, {"kind": "hello", "n": 2})
    assert sorted(str(letter.body.get("n")) for letter in await alice.mail.poll()) == ["2", "None"]
    # A stranger writes the old note back at Alice's path: Bob refuses the lower nonce.
    ns, key = did_note(alice.did)
    await pair.bob.client.set_note(ns, key, old_note)
    with pytest.raises(EngineError, match="lower than 2"):
        await bob.mail.send(alice.did, {"kind": "hello"})


async def test_a_forged_e2e_record_is_never_sealed_to(pair: Pair):
    alice, bob = pair.alice, pair.bob
    ns, key = did_note(alice.did)
    # Mallory keeps Alice's DID and swaps the record for her own key: no signature verifies.
    mallory = await pair.open("mallory")
    forged = mallory.mail.record()
    await bob.client.set_note(ns, key, f"{alice.did} mailbox:{mallory.mail.mailbox} {forged}")
    with pytest.raises(EngineError, match="not signed by this did:key"):
        await bob.mail.send(alice.did, {"kind": "hello"})


async def test_a_sealed_line_that_does_not_open_is_reported_and_skipped(pair: Pair):
    alice, bob = pair.alice, pair.bob
    seen = bob.events.subscribe()
    # Sealed to Alice's key but dropped in Bob's mailbox.
    record = await bob.mail.peer_record(alice.did)
    from tclk_tui.technocore.e2e import new_channel, seal_channel
    await alice.client.post(bob.mail.mailbox, seal_channel(record.x25519, new_channel()))
    assert await private_deals.poll_letters(bob) == 0
    assert any("does not open" in text for text in notices(seen))


async def test_private_accept_opens_the_same_contract_and_settles(pair: Pair):
    alice, bob = pair.alice, pair.bob
    view = await alice.post_offer(draft(rails="memory"))
    await bob.sync()
    accepted = await bob.accept_offer(view.deal_id, private=True)
    assert accepted.status == "accepted" and accepted.contract
    board = (await bob.client.export(OFFER_ROOM)).records
    assert not any((try_decode_frame(r.text) or {}).get("type") == "accept" for r in board)
    assert await private_deals.poll_letters(alice) == 1
    deal_a, deal_b = alice.deal(view.deal_id), bob.deal(view.deal_id)
    assert deal_a.state.status == "accepted" and deal_a.state.contract == accepted.contract
    assert deal_a.room == deal_b.room
    assert alice.board.get(view.deal_id).status == "accepted"
    await lock_as_payer(pair, deal_a, "memory")
    await reveal_as_payee(pair, bob.deal(view.deal_id))
    assert alice.deal(view.deal_id).state.status == "claimed"
    # After a restart the private accept is still part of both deals.
    alice = await pair.reopen("alice")
    assert alice.deal(view.deal_id).state.status == "claimed"


async def test_a_private_accept_with_a_bad_signature_advances_nothing(pair: Pair):
    alice, bob = pair.alice, pair.bob
    view = await alice.post_offer(draft(rails="memory"))
    seen = alice.events.subscribe()
    await bob.mail.send(alice.did, {"kind": "accept", "nonce": "5", "sig": "A" * 86,
                                    "line": 'tclk1 {"type":"accept"}'})
    await private_deals.poll_letters(alice)
    assert alice.deal(view.deal_id).state.status == "proposed"
    assert any("refused" in text for text in notices(seen))
