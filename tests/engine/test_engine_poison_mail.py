"""A poisonous letter is a notice, nothing else: sealed mail that does not parse never raises
out of a poll and never costs another letter; a letter is done only once it was handed over;
strangers' unread channels are bounded per sender, aged out, never written to the vault, and a
poll's reads do not grow with what strangers sent."""

from __future__ import annotations

import json

import httpx

from tclk_tui.engine.events import Notice
from tclk_tui.engine.sync import private_deals
from tclk_tui.engine.sync.mailbox import (
    MAX_UNREAD_PER_SENDER,
    STRANGER_READS_PER_POLL,
    UNREAD_TTL_MS,
)
from tclk_tui.engine.wallet import Wallet
from tclk_tui.technocore.e2e import encrypt_line, new_channel, seal_channel
from tests.engine.helpers import Pair, arbitrated_deal


def texts(queue) -> list[str]:
    out = []
    while not queue.empty():
        event = queue.get_nowait()
        if isinstance(event, Notice):
            out.append(event.text)
    return out


def count_reads(wallet: Wallet, monkeypatch) -> list[str]:
    """The rooms `wallet` reads from now on, one entry a read (the venue client's own read)."""
    reads: list[str] = []
    real_read = wallet.client.read

    async def counted(room, *args, **kwargs):
        reads.append(room)
        return await real_read(room, *args, **kwargs)

    monkeypatch.setattr(wallet.client, "read", counted)
    return reads


async def seal_raw(sender: Wallet, to: Wallet, lines: list[str], *, signed: bool = True,
                   venue_url: str = "") -> str:
    """Seal a fresh channel to `to` and write `lines` (plaintext pieces) into it as they are."""
    record = await sender.mail.peer_record(to.did)
    channel = new_channel()
    await sender.client.post(record.mailbox, seal_channel(record.x25519, channel))
    for line in lines:
        sealed = encrypt_line(channel.key, line)
        if signed:
            await sender.client.post(channel.room, sealed)
        else:  # the pattern's unsigned lane: GET /r/<room>/say/<nick>/<text>
            async with httpx.AsyncClient(base_url=venue_url) as http:
                reply = await http.get(f"/r/{channel.room}/say/anon/{sealed}")
                assert reply.status_code < 300, reply.text
    return channel.room


def piece(text: str, index: int = 1, count: int = 1, message: str = "m0000001") -> str:
    return f"{message} {index}/{count} {text}"


async def test_poison_in_the_same_poll_costs_the_arbiters_secret_nothing(pair: Pair):
    carol = await pair.open("carol")
    mallory, trudy = await pair.open("mallory"), await pair.open("trudy")
    offer_id, _, deal_b = await arbitrated_deal(pair, [carol])
    bob = pair.bob
    seen = bob.events.subscribe()
    deep = "[" * 200_000 + "]" * 200_000
    await seal_raw(mallory, bob, [piece(deep[:1800], 1, 2), piece(deep[1800:3600], 2, 2)])
    await seal_raw(mallory, bob, [piece('{"kind": "secret", "offer": ' + "[" * 900
                                        + "]" * 900 + "}")])
    await seal_raw(mallory, bob, [piece("not json at all")])
    await seal_raw(mallory, bob, [piece(json.dumps(["kind", "secret"]))])
    await seal_raw(trudy, bob, [piece(json.dumps({"kind": {"nested": True}}))])
    await seal_raw(trudy, bob, [piece(json.dumps({"kind": "secret", "offer": {"a": 1},
                                                  "contract": [1], "secret": None}))])
    await seal_raw(trudy, bob, ["no piece header"])
    # Too large: more pieces than any letter needs.
    await trudy.mail.send(bob.did, {"kind": "share", "pad": "x" * 60_000})
    await carol.referee.refresh()
    request = carol.referee.request_release(offer_id)
    await carol.referee.confirm_release(request, request.confirm_code)
    await bob.check_mail()  # never raises; the arbiter is expected: read in this very poll
    assert bob.keeper.deal_secret(offer_id) is not None
    assert deal_b.request_reveal().allowed
    for _ in range(4):  # the strangers' channels, a few per poll
        await bob.check_mail()
    notes = texts(seen)
    for stranger, count in ((mallory, 4), (trudy, 3)):
        assert sum("from " + stranger.did[:16] in t for t in notes) >= count, notes
    assert any("nested too deep" in t for t in notes), notes
    assert any("too large" in t for t in notes), notes


async def test_a_letter_read_but_not_handed_over_is_read_again(pair: Pair):
    carol = await pair.open("carol")
    offer_id, _, _ = await arbitrated_deal(pair, [carol])
    await carol.referee.refresh()
    request = carol.referee.request_release(offer_id)
    await carol.referee.confirm_release(request, request.confirm_code)
    letters = await pair.bob.mail.poll()  # read, then the wallet stops before acting on it
    assert [letter.body["kind"] for letter in letters] == ["secret"]
    bob = await pair.reopen("bob")
    assert bob.keeper.deal_secret(offer_id) is None
    await bob.check_mail()
    assert bob.keeper.deal_secret(offer_id) is not None
    await bob.check_mail()  # handed over once: not again
    assert await bob.mail.poll() == []


async def test_a_strangers_channels_are_bounded_aged_out_and_never_in_the_vault(pair: Pair):
    bob = pair.bob
    mallory = await pair.open("mallory")
    vault_names = set(bob.vault.backend.names())
    seen = bob.events.subscribe()
    for n in range(MAX_UNREAD_PER_SENDER + 3):  # each a message whose second piece never comes
        await seal_raw(mallory, bob, [piece("{", 1, 2, message=f"m{n:07d}")])
    await bob.check_mail()
    assert len([c for c in bob.mail.unread() if c[1] == mallory.did]) == MAX_UNREAD_PER_SENDER
    assert any("too many unread" in t for t in texts(seen))
    assert set(bob.vault.backend.names()) == vault_names
    pair.clock.advance(UNREAD_TTL_MS + 1000)
    await bob.check_mail()
    assert bob.mail.unread() == []
    assert any("aged out" in t for t in texts(seen))


async def test_a_polls_reads_do_not_grow_with_strangers_and_a_new_sender_still_gets_in(
        pair: Pair, monkeypatch):
    bob = pair.bob
    strangers = [await pair.open(f"stranger{i}") for i in range(3)]
    for stranger in strangers:
        for n in range(MAX_UNREAD_PER_SENDER):
            await seal_raw(stranger, bob, [piece("{", 1, 2, message=f"m{n:07d}")])
    await bob.check_mail()  # opens every delivery
    reads = count_reads(bob, monkeypatch)
    await bob.check_mail()
    assert len(reads) <= bob.mail.generation + STRANGER_READS_PER_POLL, reads
    # A letter from one more stranger still arrives within a bounded number of polls.
    late = await pair.open("late")
    await late.mail.send(bob.did, {"kind": "hello"})
    arrived = []
    real_handlers = dict(private_deals.HANDLERS)

    async def hello(wallet, letter):
        arrived.append(letter.sender)
        return None

    monkeypatch.setitem(private_deals.HANDLERS, "hello", hello)
    for _ in range(len(strangers) * MAX_UNREAD_PER_SENDER // STRANGER_READS_PER_POLL + 2):
        await bob.check_mail()
        if arrived:
            break
    assert arrived == [late.did]
    assert private_deals.HANDLERS.keys() >= real_handlers.keys()


async def test_unsigned_lines_of_the_pattern_are_read_or_refused_with_a_notice(pair: Pair):
    """Pattern 4 writes the `p-` room's lines through either lane: an unsigned line that opens
    with the room key is the sealer's (only it and we hold K); one that does not open is a
    notice, never a silent drop."""
    alice, bob = pair.alice, pair.bob
    seen = bob.events.subscribe()
    arrived = []

    async def hello(wallet, letter):
        arrived.append((letter.sender, letter.body["n"]))
        return None

    private_deals.HANDLERS["hello"] = hello
    try:
        await seal_raw(alice, bob, [piece(json.dumps({"kind": "hello", "n": 1}))],
                       signed=False, venue_url=pair.venue.url)
        room = await seal_raw(alice, bob, [], signed=False, venue_url=pair.venue.url)
        async with httpx.AsyncClient(base_url=pair.venue.url) as http:
            await http.get(f"/r/{room}/say/anon/AAAAAAAAAAAAAAAA.junk")
        await bob.check_mail()
    finally:
        del private_deals.HANDLERS["hello"]
    assert arrived == [(alice.did, 1)]
    assert any("does not open" in t or "not a <nonce>" in t or "unreadable" in t
               for t in texts(seen))
