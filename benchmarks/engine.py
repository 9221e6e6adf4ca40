"""Wallet-engine figures: a complete hash-lock deal between two wallets on loopback, and the
offers board taking in 10,000 signed offers.

Run: python3 benchmarks/engine.py [--deals 5] [--offers 10000]

The deal is timed from posting the offer to both wallets holding the claimed fold (post, accept,
lock, verify on the rail, reveal, read back), against a rehearsal venue in this process; nothing
in it waits on purpose (each side reads the venue once per step instead of long-polling). The
board figure covers verifying every signature, decoding and validating every frame, and building
the queryable model; the records are signed before the clock starts.
Figures only; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from tclk_tui.engine.board.offers_board import OffersBoard
from tclk_tui.engine.views import BoardQuery, OfferDraft
from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.adaptor import get_public_key
from tclk_tui.protocol.builders import make_offer
from tclk_tui.protocol.codec import decode_frame, encode_frame
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.transcript import TranscriptRecord, verify_transcript_record
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.runner import start_venue
from tclk_tui.technocore.identity import Identity
from tclk_tui.technocore.verify import VERIFY_THREADS
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault

TARGET_DEAL_S = 1.0
TARGET_INGEST_S = 1.0


# --- one deal ------------------------------------------------------------------------------


def _vault(data_dir: Path, profile: str) -> Vault:
    # The cheapest KDF: the figure is the engine's, not argon2id's.
    backend = FileVaultBackend(data_dir / f"{profile}.vault", passphrase=lambda: "bench",
                               kdf=KdfParams.minimum())
    return Vault(backend, profile=profile)


async def _one_deal(alice: Wallet, bob: Wallet, rail: str) -> float:
    start = time.perf_counter()
    draft = OfferDraft(role="payer", amount="250000", asset="FLOP", lock="hash", rails=rail)
    offer_id = (await alice.post_offer(draft)).deal_id
    await bob.sync()
    await bob.accept_offer(offer_id)
    await alice.sync()
    deal_a = alice.deal(offer_id)
    await deal_a.confirm(deal_a.request_lock(rail))
    await bob.sync()
    deal_b = bob.deal(offer_id)
    request = deal_b.request_reveal()
    await deal_b.confirm(request, typed_code=request.confirm_code)
    await alice.sync()
    elapsed = time.perf_counter() - start
    if not deal_a.state.status == deal_b.state.status == "claimed":
        raise RuntimeError(f"the deal ended {deal_a.state.status}/{deal_b.state.status}")
    return elapsed


async def bench_deals(count: int) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        async with start_venue() as venue:
            shared = {"memory": MemoryRail()}
            alice = await Wallet.open("alice", venue_url=venue.url, data_dir=data_dir,
                                      vault=_vault(data_dir, "alice"), rails=shared,
                                      follow=False)
            bob = await Wallet.open("bob", venue_url=venue.url, data_dir=data_dir,
                                    vault=_vault(data_dir, "bob"), rails=shared, follow=False)
            try:
                await _one_deal(alice, bob, "memory")  # warm-up: connections, caches
                for rail in ("memory", "paper"):
                    results[rail] = [await _one_deal(alice, bob, rail) for _ in range(count)]
            finally:
                await alice.close()
                await bob.close()
    return results


# --- board ingest --------------------------------------------------------------------------


def signed_offers(count: int, signers: int = 100) -> list[TranscriptRecord]:
    """`count` distinct offers from `signers` identities, each a real Ed25519-signed record;
    every fifth is a point lock carrying its maker's secp256k1 payment key."""
    identities = [Identity.generate() for _ in range(signers)]
    payment_keys = [get_public_key("0x" + f"{i + 1:064x}") for i in range(signers)]
    now = 1_800_000_000_000
    assets = ("FLOP", "USDC", "SATS", "EURC")
    rails = (["paper"], ["memory"], ["memory", "paper"])
    records = []
    for index in range(count):
        who = index % signers
        identity = identities[who]
        point = index % 5 == 0
        offer = make_offer(
            from_=identity.did, role="payee" if index % 3 == 0 else "payer",
            amount=str(1000 + index * 7), asset=assets[index % len(assets)],
            lock="point" if point else "hash", rails=rails[index % len(rails)],
            claim_by_ms=now + 3_600_000, refund_after_ms=now + 7_200_000,
            expires_ms=now + 600_000 + index, nonce=f"{index:016x}",
            payment_key=payment_keys[who] if point else None,
        )
        line = encode_frame(offer)
        nonce = str(now + index)
        records.append(TranscriptRecord(
            room=OFFER_ROOM, seq=index + 1, timestamp_ms=now - 1000 + index // 10,
            sender=identity.did, nonce=nonce,
            signature=identity.sign(OFFER_ROOM, nonce, line), line=line))
    return records


def bench_parts(records: list[TranscriptRecord]) -> tuple[float, float]:
    """The two protocol steps every board record goes through, timed alone: Ed25519
    verification (libsodium) and frame decode + validation (which recomputes each offer id)."""
    start = time.perf_counter()
    for record in records:
        verify_transcript_record(record)
    verify = time.perf_counter() - start
    start = time.perf_counter()
    for record in records:
        decode_frame(record.line)
    return verify, time.perf_counter() - start


def bench_ingest(records: list[TranscriptRecord]) -> tuple[float, float, int, int]:
    board = OffersBoard()
    start = time.perf_counter()
    board.ingest(records, now_ms=1_800_000_000_000)
    rows = board.query(BoardQuery(asset="FLOP", sort="amount", descending=True))
    elapsed = time.perf_counter() - start
    start = time.perf_counter()
    board.query(BoardQuery(text="usdc", rail="memory"))
    query = time.perf_counter() - start
    return elapsed, query, len(board), len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--offers", type=int, default=10_000)
    args = parser.parse_args()

    deals = asyncio.run(bench_deals(args.deals))
    for rail, times in deals.items():
        median = statistics.median(times)
        print(f"hash-lock deal, two wallets, loopback, {rail} rail: median {median * 1000:.0f} ms"
              f" (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}; {len(times)} deals;"
              f" target < {TARGET_DEAL_S:.0f} s: {'met' if median < TARGET_DEAL_S else 'MISSED'})")

    start = time.perf_counter()
    records = signed_offers(args.offers)
    print(f"signed {len(records)} offers in {time.perf_counter() - start:.2f} s (not timed below)")
    elapsed, query, size, hits = bench_ingest(records)
    print(f"board ingest of {len(records)} signed offers to a queryable model: "
          f"{elapsed * 1000:.0f} ms ({len(records) / elapsed:,.0f} offers/s; {size} on the board, "
          f"{hits} FLOP rows sorted; target < {TARGET_INGEST_S:.0f} s: "
          f"{'met' if elapsed < TARGET_INGEST_S else 'MISSED'})")
    verify, decode = bench_parts(records)
    print(f"  the parts, each timed alone on one thread: Ed25519 verification "
          f"{verify * 1000:.0f} ms (the board spreads it over {VERIFY_THREADS} threads), frame "
          f"decode and validation {decode * 1000:.0f} ms")
    print(f"a filtered text query over the whole board: {query * 1000:.1f} ms")


if __name__ == "__main__":
    main()
