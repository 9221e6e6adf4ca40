"""A complete hash-lock deal between two identities through the rehearsal venue.

Offer and accept go to tclk-offers, lock and reveal to the derived mb-p-tclk- room. A live
follower on both rooms collects what it sees; the rooms' exports, fetched afterwards and checked
offline, must fold to the same final state.
"""

import asyncio
import contextlib
import time

import httpx

from tclk_tui.protocol.builders import make_accept, make_lock, make_offer, make_reveal
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.locks import generate_hash_lock
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room, state_note
from tclk_tui.protocol.transcript import find_contract_handshake, fold_transcript
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.follow import RecordsEvent

from .helpers import PAYEE, PAYER, STRANGER


async def _follow_into(client: VenueClient, room: str, sink: list, seen: asyncio.Event,
                       want: int) -> None:
    async for event in client.follow(room, since=0):
        if isinstance(event, RecordsEvent):
            sink.extend(event.records)
            if len(sink) >= want:
                seen.set()


def _fold(board, deal_records, contract):
    handshake = find_contract_handshake([r.transcript for r in board], contract)
    assert handshake is not None
    records = [handshake.offer, handshake.accept, *(r.transcript for r in deal_records)]
    return fold_transcript(records)


async def test_hash_lock_deal_live_view_matches_the_export(venue):
    now = int(time.time() * 1000)
    lock = generate_hash_lock()
    async with (
        VenueClient(venue.url, PAYER) as payer,
        VenueClient(venue.url, PAYEE) as payee,
        VenueClient(venue.url, STRANGER) as stranger,
        VenueClient(venue.url) as auditor,
    ):
        await payee.publish_did_note(mailbox="mb-p-payee-inbox", rails=["flop-htlc"])
        board_live: list = []
        board_seen = asyncio.Event()
        watchers = [asyncio.create_task(
            _follow_into(auditor, OFFER_ROOM, board_live, board_seen, 4))]

        offer = make_offer(
            from_=PAYER.did, role="payer", amount="1000", asset="USDC", lock="hash",
            rails=["flop-htlc"], claim_by_ms=now + 3_600_000, refund_after_ms=now + 7_200_000,
            expires_ms=now + 600_000,
        )
        await payer.post(OFFER_ROOM, encode_frame(offer))
        await stranger.post(OFFER_ROOM, "gm, anyone trading today?")
        note = await payer.read_did_note(PAYEE.did)
        assert note is not None and note.speaks_tclk and "flop-htlc" in note.rails

        accept = make_accept(offer, from_=PAYEE.did, statement=lock.hash)
        contract = accept["contract"]
        room = deal_room(contract)
        await payee.post(OFFER_ROOM, encode_frame(accept))
        # A stranger's copy of the accept cannot stand in for the real one.
        forged = make_accept(offer, from_=STRANGER.did, statement=lock.hash)
        await stranger.post(OFFER_ROOM, encode_frame(forged))

        deal_live: list = []
        deal_seen = asyncio.Event()
        watchers.append(asyncio.create_task(
            _follow_into(auditor, room, deal_live, deal_seen, 3)))

        ns, key = state_note(contract)
        assert (await payee.set_note(ns, key, "accepted", if_absent=True)).ok
        await payer.post(room, encode_frame(make_lock(
            from_=PAYER.did, contract=contract, rail="flop-htlc", ref="escrow-42")))
        assert (await payer.set_note(ns, key, "locked escrow-42", if_value="accepted")).ok
        await stranger.post(room, "tclk1 {\"type\":\"noise\"}")
        await payee.post(room, encode_frame(make_reveal(
            from_=PAYEE.did, contract=contract, ref="escrow-42", secret=lock.preimage)))
        lost = await payer.set_note(ns, key, "refunded", if_value="locked")
        assert not lost.ok and lost.current == "locked escrow-42"

        # The mailbox-class deal room refuses anything unsigned.
        async with httpx.AsyncClient() as raw:
            reply = await raw.get(f"{venue.url}/r/{room}/say/eve/claimed%20it%20first")
        assert reply.status_code == 403

        async with asyncio.timeout(10):
            await board_seen.wait()
            await deal_seen.wait()
        for task in watchers:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

        live = _fold(board_live, deal_live, contract)
        board_export = await auditor.export(OFFER_ROOM)
        deal_export = await auditor.export(room)

    assert board_export.malformed == () and deal_export.malformed == ()
    assert [r.verified for r in deal_export.records] == [True, True, True]
    exported = _fold(board_export.records, deal_export.records, contract)

    assert live.state is not None and live.state.status == "claimed"
    assert live.state == exported.state
    assert live.state.secret == lock.preimage and live.state.rail_ref == "escrow-42"
    assert [(s.type, s.ok, s.reason) for s in live.steps] == [
        (s.type, s.ok, s.reason) for s in exported.steps
    ]
    assert [s.ok for s in exported.steps] == [True, True, True, False, True]
    assert exported.steps[3].reason.startswith("tclk:")
    # The export is the byte-exact stored file: the same records the live view saw.
    assert [r.text for r in deal_export.records] == [r.text for r in deal_live]
    assert [r.sig for r in board_export.records] == [r.sig for r in board_live]
