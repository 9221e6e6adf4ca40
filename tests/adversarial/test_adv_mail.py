"""Sealed mail under attack: a stranger who makes itself an expected sender, floods before a
release, or replays a delivery never costs the wallet its read budget or a referee's letter."""

from __future__ import annotations

import json

from tclk_tui.engine.commands import execute
from tclk_tui.engine.sync import private_deals
from tclk_tui.engine.sync.mailbox import (
    EXPECTED_READS_PER_POLL,
    MAX_STRANGER_CHANNELS,
    MAX_UNREAD_PER_SENDER,
    STRANGER_READS_PER_POLL,
)
from tclk_tui.technocore.e2e import encrypt_line, new_channel, seal_channel
from tests.engine.helpers import Pair, arbitrated_deal, draft
from tests.engine.test_engine_poison_mail import count_reads, piece, seal_raw


async def test_naming_the_wallet_on_a_panel_buys_a_stranger_no_reads(pair: Pair, monkeypatch):
    """Anyone may post an offer naming any DID on its panel, and the panel's members are the
    senders a juror waits for. Such a stranger's unfinished channels must not be read every
    poll: a poll's reads stay bounded whatever it sent."""
    bob = pair.bob
    mallory = await pair.stranger("mallory")
    await mallory.post_offer(draft(rails="memory", panel=f"{mallory.did},{bob.did}"))
    await bob.sync()
    assert mallory.did in bob.mail.expected()
    for n in range(40):  # each a message whose second piece never comes
        await seal_raw(mallory, bob, [piece("{", 1, 2, message=f"m{n:07d}")])
    await bob.check_mail()  # opens every delivery
    reads = count_reads(bob, monkeypatch)
    await bob.check_mail()
    assert len(reads) <= (bob.mail.generation + EXPECTED_READS_PER_POLL
                          + STRANGER_READS_PER_POLL), len(reads)


async def test_a_fake_panelists_flood_before_a_release_costs_a_one_shot_reveal_nothing(
        pair: Pair):
    """The flood lands before the arbiter's release, while no wallet of the payee's runs; its
    first one-shot `reveal` (a fresh process: nothing read before) still claims."""
    carol = await pair.open("carol")
    mallory = await pair.stranger("mallory")
    offer_id, _, _ = await arbitrated_deal(pair, [carol])
    await mallory.post_offer(draft(rails="memory", panel=f"{mallory.did},{pair.bob.did}"))
    for n in range(3 * EXPECTED_READS_PER_POLL):
        await seal_raw(mallory, pair.bob, [piece("{", 1, 2, message=f"m{n:07d}")])
    await carol.referee.refresh()
    request = carol.referee.request_release(offer_id)
    await carol.referee.confirm_release(request, request.confirm_code)
    bob = await pair.reopen("bob")
    await bob.sync()
    code = bob.deal(offer_id).state.contract[2:6]
    answer = await execute(bob, "reveal", {"deal": offer_id[:10], "confirm": code})
    assert answer["status"] == "claimed", answer


async def test_a_flood_after_the_release_does_not_push_the_letter_out_of_the_read(pair: Pair):
    """A read after a cursor answers the newest 200 records: a stranger who writes more than
    that into the payee's mailbox after the arbiter's delivery (while no wallet of the payee's
    runs) must not make the cursor jump over the delivery."""
    carol = await pair.open("carol")
    mallory = await pair.stranger("mallory")
    offer_id, _, _ = await arbitrated_deal(pair, [carol])
    await pair.bob.check_mail()  # the mailbox cursor is past everything before the release
    await carol.referee.refresh()
    request = carol.referee.request_release(offer_id)
    await carol.referee.confirm_release(request, request.confirm_code)
    mailbox = pair.bob.mail.mailbox
    for n in range(210):  # signed pokes: a mailbox takes signed writes only
        await mallory.client.post(mailbox, f"poke {n}")
    bob = await pair.reopen("bob")
    await bob.sync()
    code = bob.deal(offer_id).state.contract[2:6]
    answer = await execute(bob, "reveal", {"deal": offer_id[:10], "confirm": code})
    assert answer["status"] == "claimed", answer


async def test_a_letter_written_before_its_channel_was_sealed_still_arrives(pair: Pair,
                                                                           monkeypatch):
    """The pattern does not order the mailbox line and the room's lines: a sealer may write
    the message first and deliver the key after, in another poll."""
    alice, bob = pair.alice, pair.bob
    record = await alice.mail.peer_record(bob.did)
    channel = new_channel()
    text = json.dumps({"kind": "hello", "n": 7})
    await alice.client.post(channel.room, encrypt_line(channel.key, piece(text)))
    arrived = []

    async def hello(wallet, letter):
        arrived.append(letter.body["n"])
        return None

    monkeypatch.setitem(private_deals.HANDLERS, "hello", hello)
    await bob.check_mail()
    await alice.client.post(record.mailbox, seal_channel(record.x25519, channel))
    await bob.check_mail()
    assert arrived == [7]


async def test_a_panel_naming_the_wallet_holds_no_more_unread_than_a_stranger(pair: Pair):
    """Posting offers is free, and each may name fifteen fresh DIDs beside the wallet's: the
    channels of senders only such a panel names are bounded as a stranger's are, per sender
    and in all, so the journal does not grow with what they sent."""
    bob = pair.bob
    fakes = [await pair.stranger(f"fake{i}") for i in range(2)]
    await fakes[0].post_offer(draft(rails="memory", panel=",".join(
        [f.did for f in fakes] + [bob.did])))
    await bob.sync()
    for fake in fakes:
        for n in range(MAX_UNREAD_PER_SENDER + 6):
            await seal_raw(fake, bob, [piece("{", 1, 2, message=f"m{n:07d}")])
    await bob.check_mail()
    unread = bob.mail.unread()
    for fake in fakes:
        assert sum(peer == fake.did for _, peer in unread) <= MAX_UNREAD_PER_SENDER, unread
    assert len(unread) <= MAX_STRANGER_CHANNELS


async def test_a_strangers_dealt_share_never_writes_the_vault(pair: Pair):
    """Anyone may post a hash-lock offer naming itself dealer and this wallet juror, then deal
    it a share: one such letter per free offer. The share is kept, sealed under a key of this
    wallet's seed, in the journal, never the vault; the juror can still release it."""
    bob = pair.bob
    mallory = await pair.stranger("mallory")
    offer = await mallory.post_offer(draft(rails="memory", panel=f"{mallory.did},{bob.did}"))
    await mallory.referee.refresh()
    await mallory.referee.mint(offer.deal_id)
    await bob.sync()
    before = set(bob.vault.backend.names())
    await bob.check_mail()
    assert set(bob.vault.backend.names()) == before
    await bob.referee.refresh()
    assert bob.referee.case(offer.deal_id).held
    bob = await pair.reopen("bob")
    await bob.referee.refresh()
    assert bob.referee.case(offer.deal_id).held


async def test_every_command_that_shows_a_released_secret_reads_the_mail_first(pair: Pair):
    """`secret-reveal` (the vault pane's reveal) needs the deal's secret as `reveal` does: a
    one-shot call right after the arbiter's release shows it."""
    carol = await pair.open("carol")
    offer_id, _, _ = await arbitrated_deal(pair, [carol])
    await carol.referee.refresh()
    request = carol.referee.request_release(offer_id)
    await carol.referee.confirm_release(request, request.confirm_code)
    bob = await pair.reopen("bob")
    code = bob.deal(offer_id).state.contract[2:6]
    answer = await execute(bob, "secret-reveal", {"deal": offer_id[:10], "confirm": code})
    assert answer["secret"].startswith("0x"), answer
