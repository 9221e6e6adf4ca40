"""A whole board through the daemon: `tclk-tui --json board` and the attached app's board read,
on a venue whose `tclk-offers` holds 20,000 signed offers.

Run: python3 benchmarks/daemon_board.py [--offers 20000] [--runs 5]

The ring is served by a venue process of its own (`benchmarks/ingest.py`'s). A profile reads it
once (its first open, not timed), then, each figure the median of `--runs`:

- without a daemon: a whole `tclk-tui --json board --all` process on that profile (Python
  start-up, the restart from the journal, the read after its cursor, the answer printed);
- through a daemon on the same profile: the same process, answered over the control socket;
- the attached app's board read: `RemoteBoard.query` of the app's default query in this
  process (the call the board pane makes on every requery), and the same query in-process.

The figure to hold is the daemon's answer against the call without it (target: at most 2x).
Wall-clock seconds on the machine as it is; the load average is printed beside them. Figures
only; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ingest import NOW_S, _serve_ring, _vault  # benchmarks/ingest.py, beside this script

from tclk_tui.daemon.client import DaemonClient, NoDaemon
from tclk_tui.daemon.paths import socket_path
from tclk_tui.daemon.remote import RemoteDoor
from tclk_tui.engine.views import BoardQuery
from tclk_tui.engine.wallet import Wallet

PASS_ENV = "TCLK_BENCH_PASS"
TARGET_RATIO = 2.0


def _cli(url: str, home: Path, profile: str) -> list[str]:
    return [sys.executable, "-m", "tclk_tui.cli", "--home", str(home), "--profile", profile,
            "--venue", url, "--vault", "file", "--passphrase-env", PASS_ENV]


def _board_call(cli: list[str], env: dict[str, str]) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run([*cli, "--json", "board", "--all"], env=env, capture_output=True,
                          check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"tclk-tui board failed ({done.returncode}): "
                         f"{done.stdout[-300:]!r} {done.stderr[-300:]!r}")
    return took, len(done.stdout)


def _answers(path: Path) -> bool:
    try:
        with DaemonClient(path, timeout_s=5) as client:
            client.call("daemon.status")
        return True
    except (NoDaemon, OSError):
        return False


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


async def _first_open(url: str, home: Path, profile: str) -> int:
    wallet = await Wallet.open(profile, venue_url=url, data_dir=home,
                               vault=_vault(home, profile), follow=False)
    try:
        return len(wallet.board)
    finally:
        await wallet.close()


def _in_process_query(home: Path, profile: str) -> float:
    """The same query on a board in this process (the profile's journal replayed into it)."""
    async def query() -> float:
        wallet = await Wallet.open(profile, venue_url="http://127.0.0.1:9", data_dir=home,
                                   vault=_vault(home, profile), follow=False, offline=True)
        try:
            start = time.perf_counter()
            wallet.board.query(BoardQuery(status=None))
            return time.perf_counter() - start
        finally:
            await wallet.close()

    return asyncio.run(query())


def bench(count: int, runs: int) -> None:
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=_serve_ring, args=(count, child), daemon=True)
    server.start()
    url = parent.recv()
    home = Path(tempfile.mkdtemp(prefix="tclk-bench-board-"))
    profile = "bench"
    env = dict(os.environ, **{PASS_ENV: "bench"})
    cli = _cli(url, home, profile)
    daemon = None
    try:
        on_board = asyncio.run(_first_open(url, home, profile))
        print(f"{count} offers in the ring, {on_board} on the profile's board "
              f"(offers expire at {NOW_S:.0f} s + 10 min: run with the clock as it is, so "
              "`--all` lists them whatever their status)")
        alone = [_board_call(cli, env) for _ in range(runs)]
        in_process = _in_process_query(home, profile)
        daemon = subprocess.Popen([*cli, "daemon", "--log-level", "warning"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        path = socket_path(home / profile)
        deadline = time.monotonic() + 120
        while not _answers(path):
            if time.monotonic() > deadline or daemon.poll() is not None:
                raise SystemExit("the daemon did not start")
            time.sleep(0.05)
        through = [_board_call(cli, env) for _ in range(runs)]
        remote = RemoteDoor.attach(home / profile)
        assert remote is not None
        reads = []
        for _ in range(runs):
            start = time.perf_counter()
            rows = remote.board.query(BoardQuery(status=None))
            reads.append(time.perf_counter() - start)
        asyncio.run(remote.close())
        alone_s, through_s = _median([t for t, _ in alone]), _median([t for t, _ in through])
        ratio = through_s / alone_s
        print(f"tclk-tui --json board --all without a daemon: {alone_s:.3f} s "
              f"({alone[0][1] / 2**20:.1f} MiB printed)")
        print(f"tclk-tui --json board --all through the daemon: {through_s:.3f} s "
              f"({through[0][1] / 2**20:.1f} MiB printed); {ratio:.2f}x the call without it "
              f"(target <= {TARGET_RATIO}x: {'met' if ratio <= TARGET_RATIO else 'MISSED'})")
        print(f"attached app, board.query of {len(rows)} rows over the socket: the first "
              f"{reads[0]:.3f} s (every row fetched), then {_median(reads[1:] or reads):.3f} s "
              "(ids and versions only; the in-process query beside it: "
              f"{in_process:.3f} s)")
        print(f"medians of {runs} runs; load average {os.getloadavg()[0]:.1f} "
              f"on {os.cpu_count()} cores")
    finally:
        if daemon is not None:
            daemon.terminate()
            daemon.wait(timeout=60)
        parent.send("stop")
        server.join(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offers", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    bench(args.offers, args.runs)


if __name__ == "__main__":
    main()
