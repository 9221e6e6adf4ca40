"""Start-up ingest of a full offers ring: a wallet opening on a venue whose `tclk-offers` holds
20,000 signed offers, timed through the real start-up path.

Run: python3 benchmarks/ingest.py [--offers 20000] [--runs 3]

The ring is put into a rehearsal venue served over loopback HTTP by a process of its own (the
offers are signed before any clock starts), so what is timed here is the wallet's side only.
Each run opens a fresh profile with `Wallet.open`, which reads the ring once
(`/r/tclk-offers/export`), re-verifies every signature, decodes every frame, journals the
records in SQLite and builds the board; then the same profile is opened again (a restart: the
journal, whose records were verified and decoded when they arrived, is replayed into the board,
then the venue is read after the journal's cursor). The figures:

- ingest: the export read and parsed (every signature verified) plus the records journaled,
  decoded and on the board; the breakdown names each part;
- open: the whole `Wallet.open` (vault, journal, rails, DID note and the above).

Wall-clock seconds on the machine as it is; CPU seconds of this process are printed beside them,
since both cores may be shared. Figures only; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import functools
import multiprocessing
import os
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from engine import signed_offers  # benchmarks/engine.py, beside this script
from nacl.bindings import crypto_sign_open

from tclk_tui.engine.board import OffersBoard
from tclk_tui.engine.evidence import Evidence
from tclk_tui.engine.room_sync import RoomSync
from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.didkey import public_key_from_did_key
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.transcript import signed_message
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.config import MIB, VenueConfig
from tclk_tui.rehearsal.rooms import format_ts
from tclk_tui.rehearsal.runner import start_venue
from tclk_tui.store.journal import Journal
from tclk_tui.technocore import client as client_module
from tclk_tui.technocore.client import VenueClient
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault

TARGET_INGEST_S = 0.6
# What "ingest" sums: the three steps never nest in one another.
WHOLE_STEPS = (
    "restart: journal replayed to the board",
    "restart: read after the journal's cursor",
    "export: whole (HTTP + parse + verify)",
    "ingest: whole (journal + board + routing)",
)
NOW_S = 1_800_000_000.0


def ring_records(count: int, signers: int = 100) -> list[dict[str, Any]]:
    """`count` distinct signed offers (`benchmarks/engine.py`'s `signed_offers`) as the venue
    stores them: seq, ts, from, text, nonce, sig."""
    return [{"seq": record.seq, "ts": format_ts(record.timestamp_ms / 1000),
             "from": record.sender, "text": record.line, "nonce": int(record.nonce),
             "sig": record.signature}
            for record in signed_offers(count, signers)]


class Clocks:
    """Wall and CPU seconds spent inside named calls, summed over a run."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)

    @contextmanager
    def timing(self, name: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.wall[name] += time.perf_counter() - wall
            self.cpu[name] += time.process_time() - cpu

    def clear(self) -> None:
        self.wall.clear()
        self.cpu.clear()


@contextmanager
def instrumented(clocks: Clocks) -> Iterator[None]:
    """Wrap the start-up path's steps in timers (and put them back afterwards)."""
    targets: list[tuple[Any, str, str]] = [
        (client_module, "parse_export", "export: parse + verify"),
        (VenueClient, "export", "export: whole (HTTP + parse + verify)"),
        (RoomSync, "replay_journal", "restart: journal replayed to the board"),
        (RoomSync, "_board_after_cursor", "restart: read after the journal's cursor"),
        (RoomSync, "ingest", "ingest: whole (journal + board + routing)"),
        (Evidence, "add", "ingest: journal the records"),
        (OffersBoard, "ingest", "ingest: board (decode + model)"),
        (RoomSync, "route_board", "ingest: route accepts/cancels to deals"),
        (Journal, "records", "restart: journal read back"),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]
    for owner, name, label in targets:
        original = getattr(owner, name)
        setattr(owner, name, _timed(original, clocks, label))
    try:
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def _timed(original: Callable[..., Any], clocks: Clocks, label: str) -> Callable[..., Any]:
    if asyncio.iscoroutinefunction(original):
        @functools.wraps(original)
        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            with clocks.timing(label):
                return await original(*args, **kwargs)
        return timed_async

    @functools.wraps(original)
    def timed(*args: Any, **kwargs: Any) -> Any:
        with clocks.timing(label):
            return original(*args, **kwargs)
    return timed


def _vault(data_dir: Path, profile: str) -> Vault:
    backend = FileVaultBackend(data_dir / f"{profile}.vault", passphrase=lambda: "bench",
                               kdf=KdfParams.minimum())
    return Vault(backend, profile=profile)


async def _open(url: str, data_dir: Path, profile: str, clocks: Clocks) -> tuple[float, float, int]:
    with clocks.timing("open: whole Wallet.open"):
        wallet = await Wallet.open(profile, venue_url=url, data_dir=data_dir,
                                   vault=_vault(data_dir, profile),
                                   rails={"memory": MemoryRail()}, follow=False,
                                   clock_ms=lambda: int(NOW_S * 1000))
    try:
        on_board = len(wallet.board)
    finally:
        await wallet.close()
    return clocks.wall["open: whole Wallet.open"], clocks.cpu["open: whole Wallet.open"], on_board


def _report(kind: str, clocks: Clocks, count: int, on_board: int) -> float:
    ingest = sum(clocks.wall[name] for name in WHOLE_STEPS)
    ingest_cpu = sum(clocks.cpu[name] for name in WHOLE_STEPS)
    print(f"{kind}: ingest {ingest:.3f} s wall ({ingest_cpu:.3f} s CPU), "
          f"{count / ingest:,.0f} records/s, {on_board} offers on the board; "
          f"target < {TARGET_INGEST_S} s: {'met' if ingest < TARGET_INGEST_S else 'MISSED'}")
    for name in sorted(clocks.wall):
        print(f"    {name:44s} {clocks.wall[name]:7.3f} s wall {clocks.cpu[name]:7.3f} s CPU")
    return ingest


def verify_floor(count: int, threads: int, rounds: int) -> float:
    """Wall seconds of libsodium alone checking the ring's signatures on `threads` threads,
    best of `rounds` (messages, keys and signatures prepared once, before any clock starts):
    what no ingest of a fresh ring can beat on this machine, since every signature must be
    checked."""
    prepared = [(base64.urlsafe_b64decode(r.signature + "==")
                 + signed_message(r.room, r.nonce, r.line), public_key_from_did_key(r.sender))
                for r in signed_offers(count, 100) if r.signature and r.nonce]

    def check(part: list[tuple[bytes, bytes]]) -> None:
        for signed, key in part:
            crypto_sign_open(signed, key)

    size = -(-len(prepared) // threads)
    parts = [prepared[i:i + size] for i in range(0, len(prepared), size)]
    best = float("inf")
    with ThreadPoolExecutor(threads) as pool:
        for _ in range(rounds):
            start = time.perf_counter()
            list(pool.map(check, parts))
            best = min(best, time.perf_counter() - start)
    return best


def _serve_ring(count: int, conn: Connection) -> None:
    """The venue, in a process of its own (as a real venue is): signs and stores the ring,
    says where it listens, and serves until told to stop."""
    async def serve() -> None:
        records = ring_records(count)
        config = VenueConfig(ring_bytes=256 * MIB, ring_keep_bytes=128 * MIB,
                             ring_keep_lines=10 * count, dupe_filter_seconds=0)
        async with start_venue(config) as venue:
            for record in records:
                venue.venue.inject_record(OFFER_ROOM, record)
            conn.send(venue.url)
            while not conn.poll():
                await asyncio.sleep(0.2)

    asyncio.run(serve())


async def bench(count: int, runs: int) -> None:
    start = time.perf_counter()
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=_serve_ring, args=(count, child), daemon=True)
    server.start()
    url = await asyncio.get_running_loop().run_in_executor(None, parent.recv)
    print(f"a venue process signed and stored {count} offers in "
          f"{time.perf_counter() - start:.1f} s (not timed)")
    fresh: list[float] = []
    restart: list[float] = []
    clocks = Clocks()
    try:
        for run in range(runs):
            with tempfile.TemporaryDirectory() as tmp, instrumented(clocks):
                data_dir = Path(tmp)
                clocks.clear()
                _, _, on_board = await _open(url, data_dir, f"run{run}", clocks)
                fresh.append(_report(f"run {run + 1} first open", clocks, count, on_board))
                clocks.clear()
                _, _, on_board = await _open(url, data_dir, f"run{run}", clocks)
                restart.append(_report(f"run {run + 1} restart", clocks, count, on_board))
    finally:
        parent.send("stop")
        server.join(30)
    print(f"median ingest over {runs} runs: first open {statistics.median(fresh):.3f} s, "
          f"restart {statistics.median(restart):.3f} s "
          f"({os.cpu_count()} CPUs visible; target < {TARGET_INGEST_S} s)")
    cpus = os.cpu_count() or 1
    print(f"floor for a first open: libsodium alone checks the {count} signatures in "
          f"{verify_floor(count, cpus, 3):.3f} s on {cpus} threads (best of 3), nothing else done")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offers", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(bench(args.offers, args.runs))


if __name__ == "__main__":
    main()
