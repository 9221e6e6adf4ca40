"""Start-up ingest of a full offers ring: a wallet opening on a venue whose `tclk-offers` holds
20,000 signed offers, timed through the real start-up path.

Run: python3 benchmarks/ingest.py [--offers 20000] [--runs 3] [--no-app]

The ring is put into a rehearsal venue served over loopback HTTP by a process of its own (the
offers are signed before any clock starts), so what is timed here is the wallet's side only.
Each run opens a fresh profile with `Wallet.open`, which exports the ring once and checks it on
the verify threads, newest records first (shown at once as a preview), while the whole ring is
journaled, decoded and read into the board in venue order; then the same profile is opened
again (a restart: the journal, whose records were verified and decoded when they arrived, is
replayed into the board, then the venue is read after the journal's cursor). The figures:

- first screen: from the start of `Wallet.open` (the vault is opened there) until the board
  answers the app's default query with a screenful of verified offers;
- ingest: the board's whole ring read, from the export's request until the last record is
  journaled and on the board (a restart: the replay plus the read after the cursor);
- floor: libsodium alone checking the ring's 20,000 signatures on 2 threads, measured right
  after each first open, and the first open's ingest against it (target: at most 2x);
- from launch (unless `--no-app`): a new Python process that starts the app headless on a
  fresh profile (imports, vault, app, board) until its board table shows a screenful of rows.

Wall-clock seconds on the machine as it is, CPU seconds of this process beside them, and the
load average (both cores may be shared). Figures only; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import functools
import multiprocessing
import os
import statistics
import subprocess
import sys
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

from tclk_tui.engine.board.offers_board import OffersBoard
from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.evidence import Evidence
from tclk_tui.engine.sync.room_sync import RoomSync
from tclk_tui.engine.views import BoardQuery
from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.didkey import public_key_from_did_key
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.transcript import signed_message
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.config import MIB, VenueConfig
from tclk_tui.rehearsal.rooms import format_ts
from tclk_tui.rehearsal.runner import start_venue
from tclk_tui.store.records import RecordStore
from tclk_tui.technocore.client import VenueClient
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault

TARGET_RESTART_S = 0.6
TARGET_FIRST_SCREEN_S = 0.5
TARGET_LAUNCH_S = 2.0
TARGET_FLOOR_RATIO = 2.0
SCREEN_ROWS = 30  # the board rows a 120x40 terminal shows
# What "ingest" sums: the two steps never nest in one another.
WHOLE_STEPS = (
    "restart: journal replayed to the board",
    "sync: the board read (export or after the cursor) and folded in",
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
        self.marks: dict[str, float] = {}

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
        self.marks.clear()


@contextmanager
def instrumented(clocks: Clocks) -> Iterator[None]:
    """Wrap the start-up path's steps in timers (and put them back afterwards)."""
    targets: list[tuple[Any, str, str]] = [
        (VenueClient, "export_body", "sync: export (HTTP)"),
        (RoomSync, "replay_journal", "restart: journal replayed to the board"),
        (RoomSync, "sync", "sync: the board read (export or after the cursor) and folded in"),
        (RoomSync, "_board_after_cursor", "restart: read after the journal's cursor"),
        (RoomSync, "ingest", "sync: journal + board + routing, all batches"),
        (Evidence, "add", "sync: journal the records"),
        (OffersBoard, "ingest", "sync: board (decode + model)"),
        (RecordStore, "of_room", "restart: journal read back"),
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


@contextmanager
def first_screen(clocks: Clocks) -> Iterator[None]:
    """Note when the board first answers the app's default query with a screenful of rows:
    after the preview and after each batch folded in (each row a verified offer)."""
    found: list[float] = []
    saved = [(OffersBoard, "show_preview", OffersBoard.show_preview),
             (RoomSync, "ingest", RoomSync.ingest)]

    def check(board: OffersBoard) -> None:
        if not found and len(board.query(BoardQuery())) >= SCREEN_ROWS:
            found.append(time.perf_counter())
            clocks.marks["first screen"] = found[0]

    def show_preview(self: OffersBoard, *args: Any, **kwargs: Any) -> Any:
        changed = saved[0][2](self, *args, **kwargs)
        check(self)
        return changed

    def ingest(self: RoomSync, *args: Any, **kwargs: Any) -> Any:
        saved[1][2](self, *args, **kwargs)
        check(self.board)

    OffersBoard.show_preview = show_preview  # type: ignore[method-assign]
    RoomSync.ingest = ingest  # type: ignore[method-assign]
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


async def _open(url: str, data_dir: Path, profile: str, clocks: Clocks) -> tuple[float, int]:
    """Open the profile (follow=False: `Wallet.open` returns once the venue is read); the wall
    seconds from its start to the first screen (inf if none), and the offers on the board."""
    start = time.perf_counter()
    with clocks.timing("open: whole Wallet.open"), first_screen(clocks):
        wallet = await Wallet.open(profile, venue_url=url, data_dir=data_dir,
                                   vault=_vault(data_dir, profile),
                                   rails={"memory": MemoryRail()}, follow=False,
                                   clock_ms=lambda: int(NOW_S * 1000))
    try:
        on_board = len(wallet.board)
    finally:
        await wallet.close()
    return clocks.marks.get("first screen", float("inf")) - start, on_board


def _report(kind: str, clocks: Clocks, count: int, on_board: int) -> float:
    ingest = sum(clocks.wall[name] for name in WHOLE_STEPS)
    ingest_cpu = sum(clocks.cpu[name] for name in WHOLE_STEPS)
    print(f"{kind}: ingest {ingest:.3f} s wall ({ingest_cpu:.3f} s CPU), "
          f"{count / ingest:,.0f} records/s, {on_board} offers on the board")
    for name in sorted(clocks.wall):
        print(f"    {name:58s} {clocks.wall[name]:7.3f} s wall {clocks.cpu[name]:7.3f} s CPU")
    return ingest


@functools.cache
def _prepared(count: int) -> list[tuple[bytes, bytes]]:
    """The ring's signed messages and keys, for `verify_floor` (signed once per process)."""
    return [(base64.urlsafe_b64decode(r.signature + "==")
             + signed_message(r.room, r.nonce, r.line), public_key_from_did_key(r.sender))
            for r in signed_offers(count, 100) if r.signature and r.nonce]


def verify_floor(count: int, threads: int, rounds: int) -> float:
    """Wall seconds of libsodium alone checking the ring's signatures on `threads` threads,
    best of `rounds` (messages, keys and signatures prepared once, before any clock starts):
    what no ingest of a fresh ring can beat on this machine, since every signature must be
    checked."""
    prepared = _prepared(count)

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


def _app_child(url: str, data_dir: str, launched: float) -> None:
    """In a new process: the app, headless, on a fresh profile; prints the seconds from the
    parent's launch and from the start of `Wallet.open` until a screenful of rows shows."""
    async def run() -> None:
        from tclk_tui.tui.app import TclkApp
        from tclk_tui.tui.offer_table import OfferTable

        home = Path(data_dir)
        opened = time.time()
        wallet = await Wallet.open("app", venue_url=url, data_dir=home, vault=_vault(home, "app"),
                                   rails={"memory": MemoryRail()}, follow=True, background=True,
                                   clock_ms=lambda: int(NOW_S * 1000))
        app = TclkApp(LocalDoor(wallet))
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                table = app.query_one(OfferTable)
                while table.row_count < SCREEN_ROWS:
                    await pilot.pause(0.005)
                shown = time.time()
                await wallet.rooms.first_read.wait()
        finally:
            await wallet.close()
        print(f"{shown - launched:.3f} {shown - opened:.3f}", flush=True)

    asyncio.run(run())


def _from_launch(url: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        launched = time.time()
        done = subprocess.run([sys.executable, __file__, "--app-child", url, tmp, repr(launched)],
                              capture_output=True, check=True)
    launch_s, open_s = done.stdout.split()[-2:]
    return float(launch_s), float(open_s)


async def bench(count: int, runs: int, app: bool) -> None:
    start = time.perf_counter()
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=_serve_ring, args=(count, child), daemon=True)
    server.start()
    url = await asyncio.get_running_loop().run_in_executor(None, parent.recv)
    print(f"a venue process signed and stored {count} offers in "
          f"{time.perf_counter() - start:.1f} s (not timed)")
    fresh: list[float] = []
    screens: list[float] = []
    ratios: list[float] = []
    floors: list[float] = []
    restart: list[float] = []
    launches: list[tuple[float, float]] = []
    clocks = Clocks()
    try:
        for run in range(runs):
            with tempfile.TemporaryDirectory() as tmp, instrumented(clocks):
                data_dir = Path(tmp)
                clocks.clear()
                screen, on_board = await _open(url, data_dir, f"run{run}", clocks)
                ingest = _report(f"run {run + 1} first open", clocks, count, on_board)
                floor = verify_floor(count, 2, 3)
                fresh.append(ingest)
                screens.append(screen)
                floors.append(floor)
                ratios.append(ingest / floor)
                print(f"    first screen {screen:.3f} s after Wallet.open began; floor "
                      f"{floor:.3f} s; ingest / floor {ingest / floor:.2f}; load "
                      f"{os.getloadavg()[0]:.1f}")
                clocks.clear()
                _, on_board = await _open(url, data_dir, f"run{run}", clocks)
                restart.append(_report(f"run {run + 1} restart", clocks, count, on_board))
            if app:
                launches.append(_from_launch(url))
                print(f"    the app from launch: a screenful of rows {launches[-1][0]:.3f} s "
                      f"after launch, {launches[-1][1]:.3f} s after Wallet.open began")
    finally:
        parent.send("stop")
        server.join(30)
    median = statistics.median
    print(f"medians over {runs} runs ({os.cpu_count()} CPUs visible, load average "
          f"{os.getloadavg()[0]:.1f}):")
    print(f"  first screen {median(screens):.3f} s after the vault is open "
          f"(target < {TARGET_FIRST_SCREEN_S} s: "
          f"{'met' if median(screens) < TARGET_FIRST_SCREEN_S else 'MISSED'})")
    if launches:
        from_launch = median(t for t, _ in launches)
        print(f"  first screen from launch {from_launch:.3f} s (the app in a new process; "
              f"target < {TARGET_LAUNCH_S} s: "
              f"{'met' if from_launch < TARGET_LAUNCH_S else 'MISSED'})")
    ratio = median(ratios)
    print(f"  first open: whole ring ingested in {median(fresh):.3f} s against a 2-thread "
          f"libsodium floor of {median(floors):.3f} s: {ratio:.2f}x (target <= "
          f"{TARGET_FLOOR_RATIO}x: {'met' if ratio <= TARGET_FLOOR_RATIO else 'MISSED'})")
    print(f"  restart {median(restart):.3f} s (target <= {TARGET_RESTART_S} s: "
          f"{'met' if median(restart) <= TARGET_RESTART_S else 'MISSED'})")


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--app-child":
        _app_child(sys.argv[2], sys.argv[3], float(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offers", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-app", action="store_true", help="skip the from-launch figure")
    args = parser.parse_args()
    asyncio.run(bench(args.offers, args.runs, not args.no_app))


if __name__ == "__main__":
    main()
