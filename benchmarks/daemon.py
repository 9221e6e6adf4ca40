"""Daemon figures: a control-socket call, and `tclk-tui status` through a running daemon.

Run: python3 benchmarks/daemon.py [--calls 500] [--runs 10]

A rehearsal venue and a daemon are started as processes on a throwaway profile (cheapest vault
KDF: the daemon unlocks the vault once, the calls never do). The socket figure is one
`daemon.status` round trip on an open connection, and one `status <deal>` (a registry command
that reads the engine's memory) on the same connection. The CLI figure is the wall time of a
whole `tclk-tui status <deal> --json` process, Python start-up included, answered by the daemon.
Figures only; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tclk_tui.daemon.client import DaemonClient, NoDaemon
from tclk_tui.daemon.paths import socket_path
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault

TARGET_CALL_P50_MS = 2.0
TARGET_CLI_MS = 150.0
PASS_ENV = "TCLK_BENCH_PASS"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _until(predicate, what: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.05)


def _answers(path: Path) -> bool:
    try:
        with DaemonClient(path, timeout_s=5) as client:
            client.call("daemon.status")
        return True
    except (NoDaemon, OSError):
        return False


def _percentiles(samples_ms: list[float]) -> tuple[float, float]:
    ordered = sorted(samples_ms)
    return statistics.median(ordered), ordered[int(len(ordered) * 0.95) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--runs", type=int, default=10)
    opts = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="tclk-bench-daemon-"))
    backend = FileVaultBackend(home / "bench.vault", passphrase=lambda: "bench",
                               kdf=KdfParams.minimum())
    Vault(backend, profile="bench").ensure_seed()
    port = _free_port()
    venue_url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, **{PASS_ENV: "bench"})
    cli = [sys.executable, "-m", "tclk_tui.cli", "--home", str(home), "--profile", "bench",
           "--venue", venue_url, "--vault", "file", "--passphrase-env", PASS_ENV]
    venue = subprocess.Popen([sys.executable, "-m", "tclk_tui.cli", "venue", "--port",
                              str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    daemon = None
    try:
        _until(lambda: _port_open(port), "the venue")
        daemon = subprocess.Popen([*cli, "daemon", "--log-level", "warning"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        path = socket_path(home / "bench")
        _until(lambda: _answers(path), "the daemon")
        with DaemonClient(path) as client:
            deal = client.call("offer", {"amount": "1000", "asset": "FLOP",
                                         "rails": "paper"})["deal"]
            figures = {}
            for method, params in (("daemon.status", {}), ("status", {"deal": deal})):
                for _ in range(50):  # warm up
                    client.call(method, params)
                samples = []
                for _ in range(opts.calls):
                    start = time.perf_counter()
                    client.call(method, params)
                    samples.append((time.perf_counter() - start) * 1000)
                figures[method] = _percentiles(samples)
        walls, cpus = [], []
        for _ in range(opts.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run([*cli, "status", deal, "--json"], env=env,
                                  capture_output=True, check=False)
            walls.append((time.perf_counter() - start) * 1000)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
                        * 1000)
            if done.returncode != 0:
                raise SystemExit(f"tclk-tui status failed: {done.stderr.decode()}")
        for method, (p50, p95) in figures.items():
            print(f"control socket {method:<14} p50 {p50:6.3f} ms  p95 {p95:6.3f} ms  "
                  f"({opts.calls} calls; target p50 < {TARGET_CALL_P50_MS} ms)")
        p50, p95 = _percentiles(walls)
        print(f"tclk-tui status through the daemon: wall p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  "
              f"min {min(walls):6.1f} ms; cpu p50 {statistics.median(cpus):6.1f} ms  "
              f"({opts.runs} runs; target < {TARGET_CLI_MS} ms)")
        print(f"load average while measuring: {os.getloadavg()[0]:.1f} "
              f"on {os.cpu_count()} cores")
    finally:
        for proc in (daemon, venue):
            if proc is not None:
                proc.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=30)


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


if __name__ == "__main__":
    main()
