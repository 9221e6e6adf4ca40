"""Venue client figures against a rehearsal venue on loopback.

Prints:
- publish -> receive latency (p50/p95) of signed posts seen by a long-poll follower;
- sustained signed posts per second into one room;
- export + verify + fold throughput for a 20,000-record deal room.

Run: python3 benchmarks/venue.py [--messages 300] [--posts 1000] [--records 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import time

from tclk_tui.protocol.builders import (
    make_accept,
    make_heartbeat,
    make_lock,
    make_offer,
    make_reveal,
)
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.locks import generate_hash_lock
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.transcript import find_contract_handshake, fold_transcript
from tclk_tui.rehearsal.runner import start_venue
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.follow import RecordsEvent
from tclk_tui.technocore.identity import Identity


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


async def latency(url: str, messages: int) -> None:
    writer_id, reader_id = Identity.generate(), Identity.generate()
    room = "bench-latency"
    received: dict[str, float] = {}
    arrived = asyncio.Event()

    async with VenueClient(url, writer_id) as writer, VenueClient(url, reader_id) as reader:
        start = await reader.cursor(room)

        async def follow() -> None:
            async for event in reader.follow(room, since=start):
                if isinstance(event, RecordsEvent):
                    now = time.perf_counter()
                    for record in event.records:
                        received[record.text] = now
                    arrived.set()

        task = asyncio.create_task(follow())
        samples: list[float] = []
        try:
            for index in range(messages):
                text = f"latency probe {index} {time.time_ns()}"
                arrived.clear()
                sent = time.perf_counter()
                await writer.post(room, text)
                while text not in received:
                    await asyncio.wait_for(arrived.wait(), 15)
                    arrived.clear()
                samples.append((received[text] - sent) * 1000)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    print(f"publish->receive latency over {messages} signed posts (long-poll follower): "
          f"p50 {percentile(samples, 0.5):.2f} ms, p95 {percentile(samples, 0.95):.2f} ms, "
          f"max {max(samples):.2f} ms")


async def posts_per_second(url: str, posts: int) -> None:
    identity = Identity.generate()
    async with VenueClient(url, identity) as client:
        began = time.perf_counter()
        for index in range(posts):
            await client.post("bench-posts", f"sustained post {index} {time.time_ns()}")
        elapsed = time.perf_counter() - began
    print(f"sustained signed posts into one room: {posts / elapsed:.0f} posts/s "
          f"({posts} posts, {elapsed:.2f} s, sequential, one client)")


def _ts(base: dt.datetime, offset_ms: int) -> str:
    return (base + dt.timedelta(milliseconds=offset_ms)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _record(identity: Identity, room: str, seq: int, nonce: int, text: str, ts: str) -> dict:
    return {"seq": seq, "ts": ts, "from": identity.did, "text": text, "nonce": nonce,
            "sig": identity.sign(room, nonce, text)}


async def export_fold(url: str, venue: object, records: int) -> None:
    payer, payee = Identity.generate(), Identity.generate()
    base = dt.datetime.now(dt.UTC)
    now_ms = int(base.timestamp() * 1000)
    lock = generate_hash_lock()
    offer = make_offer(
        from_=payer.did, role="payer", amount="1000", asset="USDC", lock="hash",
        rails=["flop-htlc"], claim_by_ms=now_ms + 86_400_000,
        refund_after_ms=now_ms + 2 * 86_400_000, expires_ms=now_ms + 3_600_000,
    )
    accept = make_accept(offer, from_=payee.did, statement=lock.hash)
    contract = accept["contract"]
    room = deal_room(contract)
    model = venue.venue  # type: ignore[attr-defined]
    model.inject_record(OFFER_ROOM, _record(payer, OFFER_ROOM, 1, 1, encode_frame(offer),
                                            _ts(base, 0)))
    model.inject_record(OFFER_ROOM, _record(payee, OFFER_ROOM, 2, 1, encode_frame(accept),
                                            _ts(base, 1)))
    frames = [(payer, make_lock(from_=payer.did, contract=contract, rail="flop-htlc",
                                ref="escrow-1"))]
    for index in range(records - 2):
        party = payer if index % 2 else payee
        frames.append((party, make_heartbeat(from_=party.did, contract=contract)))
    frames.append((payee, make_reveal(from_=payee.did, contract=contract, ref="escrow-1",
                                      secret=lock.preimage)))
    build = time.perf_counter()
    for seq, (party, frame) in enumerate(frames, start=1):
        model.inject_record(room, _record(party, room, seq, seq, encode_frame(frame),
                                          _ts(base, 10 + seq)))
    built = time.perf_counter() - build

    async with VenueClient(url) as auditor:
        began = time.perf_counter()
        board = await auditor.export(OFFER_ROOM)
        exported = await auditor.export(room)
        fetched = time.perf_counter()
        handshake = find_contract_handshake([r.transcript for r in board.records], contract)
        assert handshake is not None
        fold = fold_transcript([handshake.offer, handshake.accept, *exported.transcript])
        done = time.perf_counter()
    assert fold.state is not None and fold.state.status == "claimed"
    assert len(exported.records) == records and all(r.verified for r in exported.records)
    total = done - began
    print(f"export + verify + fold of a {records}-record deal room "
          f"({len(exported.raw) / 1e6:.1f} MB): {total:.2f} s = {records / total:.0f} records/s "
          f"(export+parse+verify {fetched - began:.2f} s, fold {done - fetched:.2f} s; "
          f"building the room took {built:.2f} s)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--posts", type=int, default=1000)
    parser.add_argument("--records", type=int, default=20_000)
    args = parser.parse_args()
    async with start_venue() as venue:
        await latency(venue.url, args.messages)
        await posts_per_second(venue.url, args.posts)
        await export_fold(venue.url, venue, args.records)


if __name__ == "__main__":
    asyncio.run(main())
