"""A signed request over a room runs at most once, ever: a stranger who re-posts it, byte for
byte, once the venue's nonce tail has forgotten it, gets nothing run and nothing answered,
before or after the wallet restarts."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from tclk_tui.agents.room import encode
from tclk_tui.agents.room_caller import RpcError
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.identity import Identity
from tests.agents.support import manifest_text
from tests.agents.test_agents_room import agent_client, serving

OFFER = {"role": "payer", "amount": "250", "asset": "FLOP", "rails": "memory"}


async def _replay(venue_url: str, mailbox: str, req_id: str) -> int:
    """What anyone who reads the mailbox can do: post the caller's signed record again.
    Returns the seq the replay was stored at."""
    async with VenueClient(venue_url, None) as reader:
        view = await reader.read(mailbox, since=0, limit=200)
        record = next(r for r in view.records if f'"id":"{req_id}"' in r.text)
        async with httpx.AsyncClient(base_url=venue_url) as http:
            reply = await http.post(f"/r/{mailbox}", params={"format": "json"},
                                    json={"did": record.sender, "sig": record.sig,
                                          "nonce": record.nonce, "text": record.text})
        assert reply.status_code == 200, reply.text  # the venue took it: its tail forgot it
        view = await reader.read(mailbox, since=0, limit=200)
    replayed = [r for r in view.records if r.sig == record.sig]
    assert len(replayed) >= 2
    return replayed[-1].seq


async def _bury_the_nonce_tail(desks, mailbox: str) -> None:
    desks.pair.venue.venue.config.nonce_window_bytes = 200
    async with VenueClient(desks.pair.venue.url, Identity.generate()) as noise:
        await noise.post(mailbox, "x" * 300)


async def _answers(venue_url: str, room: str, req_id: str) -> int:
    async with VenueClient(venue_url, None) as reader:
        view = await reader.read(room, since=0, limit=200)
    return sum(f'"id":"{req_id}"' in r.text for r in view.records)


async def _read_up_to(wallet, mailbox: str, seq: int) -> None:
    """Wait until the wallet's mailbox server has read past `seq` (its journaled cursor)."""
    async with asyncio.timeout(10):
        while (cursor := wallet.journal.cursor(mailbox)) is None or cursor.seq < seq:
            await asyncio.sleep(0.01)


async def test_a_replayed_request_is_refused_after_the_tail_is_buried_and_a_restart(desks):
    async with agent_client(desks.pair.venue.url) as (me, caller):
        desks.manifest("alice", "buyer", manifest_text(extra=f'did = "{me.did}"\n'))
        async with serving(desks, "alice") as server:
            first = await caller.call_tool(server.mailbox, "offer", OFFER, req_id="once-1")
            assert not first["isError"]
            mailbox = server.mailbox
            await _bury_the_nonce_tail(desks, mailbox)
            seq = await _replay(desks.pair.venue.url, mailbox, "once-1")
            await _read_up_to(desks.pair.alice, mailbox, seq)
            await server.drain()  # every request it read has been handled
        assert len(desks.pair.alice.deals()) == 1
        assert await _answers(desks.pair.venue.url, caller.reply_mailbox, "once-1") == 1

        await desks.reopen("alice")  # nothing in memory survives: the rule is journaled
        async with serving(desks, "alice") as server:
            await _bury_the_nonce_tail(desks, mailbox)
            seq = await _replay(desks.pair.venue.url, mailbox, "once-1")
            await _read_up_to(desks.pair.alice, mailbox, seq)
            await server.drain()
            # A retry under the same id (a new signed write) after the restart: refused too.
            with pytest.raises(RpcError, match="answered already"):
                await caller.call_tool(server.mailbox, "offer", OFFER, req_id="once-1")
            # The caller's own fresh requests still run, after the replay was read.
            again = await caller.call_tool(server.mailbox, "deals", {}, req_id="once-2")
            assert len(again["structuredContent"]["deals"]) == 1
    assert len(desks.pair.alice.deals()) == 1
    assert [c.tool for c in desks.alice.ledger.calls("buyer")] == ["deals", "offer"]
    assert await _answers(desks.pair.venue.url, caller.reply_mailbox, "once-1") == 2  # +refusal
    assert server.replays == 1  # counted, never answered


async def test_a_caller_whose_nonces_went_back_is_told_to_count_up(desks):
    async with agent_client(desks.pair.venue.url) as (me, caller), \
            serving(desks, "alice") as server:
        desks.manifest("alice", "buyer", manifest_text(extra=f'did = "{me.did}"\n'))
        await caller.call_tool(server.mailbox, "deals", {}, req_id="up-1")
        await _bury_the_nonce_tail(desks, server.mailbox)
        answer = caller.expect("back-1", desks.pair.alice.did)
        await caller.client.post(server.mailbox, encode({
            "jsonrpc": "2.0", "id": "back-1", "method": "tools/call",
            "params": {"name": "offer", "arguments": OFFER,
                       "_meta": {"chat.technocore/reply": caller.reply_mailbox}}}), nonce=1)
        async with asyncio.timeout(10):
            frame = await answer
    assert frame["error"]["code"] == -32600 and "higher nonce" in frame["error"]["message"]
    assert desks.pair.alice.deals() == []
