"""Find and run anvil (Foundry's local EVM node) for the demo, the tests and the benchmark.

The `@foundry-rs/anvil` npm package ships the binary; the README's test command installs it
under `.tools/`. `TCLK_ANVIL` names a binary explicitly; otherwise the npm install under
`.tools/` of the working directory or of this checkout, then `anvil` on PATH.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

__all__ = ["AnvilNode", "AnvilNotFound", "find_anvil", "start_anvil"]

ANVIL_ENV = "TCLK_ANVIL"
START_TIMEOUT_S = 20.0
# Anvil's default chain id; the demo and the tests use it.
ANVIL_CHAIN_ID = 31337


class AnvilNotFound(RuntimeError):
    """No anvil binary where the wallet looks for one; the message says how to install it."""


def _npm_candidates(root: Path) -> list[Path]:
    modules = root / ".tools" / "node_modules"
    native = sorted(modules.glob("@foundry-rs/anvil-*/bin/anvil"))
    return [*native, modules / ".bin" / "anvil"]


def find_anvil() -> str:
    explicit = os.environ.get(ANVIL_ENV)
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise AnvilNotFound(f"{ANVIL_ENV} names {explicit!r}, which is not an executable "
                                "file")
        return explicit
    checkout = Path(__file__).resolve().parents[3]
    for root in (Path.cwd(), checkout):
        for candidate in _npm_candidates(root):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    on_path = shutil.which("anvil")
    if on_path:
        return on_path
    raise AnvilNotFound(
        "anvil not found: install it with `npm install --no-save --prefix .tools "
        "@foundry-rs/anvil`, put it on PATH, or set TCLK_ANVIL to the binary")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class AnvilNode:
    url: str
    port: int
    process: subprocess.Popen
    chain_id: int = ANVIL_CHAIN_ID

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _ready(url: str) -> bool:
    try:
        reply = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId",
                                      "params": []}, timeout=1.0, trust_env=False)
        return reply.status_code == 200 and "result" in reply.json()
    except (httpx.HTTPError, ValueError):
        return False


@contextlib.contextmanager
def start_anvil(*extra: str, block_time: int | None = None) -> Iterator[AnvilNode]:
    """A fresh anvil on a free loopback port, stopped on exit; automine unless `block_time`."""
    binary = find_anvil()
    for _attempt in range(3):  # a free port can be taken between probing and binding
        port = free_port()
        args = [binary, "--host", "127.0.0.1", "--port", str(port), "--silent",
                "--chain-id", str(ANVIL_CHAIN_ID), *extra]
        if block_time is not None:
            args += ["--block-time", str(block_time)]
        process = subprocess.Popen(args, stdout=subprocess.DEVNULL,  # noqa: S603 (our binary)
                                   stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        node = AnvilNode(url=url, port=port, process=process)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and process.poll() is None and not _ready(url):
            time.sleep(0.02)
        if process.poll() is None and _ready(url):
            try:
                yield node
            finally:
                node.stop()
            return
        node.stop()
    raise RuntimeError("anvil did not start")


async def wait_ready(url: str, timeout_s: float = START_TIMEOUT_S) -> None:
    """Poll an already-started node until it answers (used by the async demo)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if await asyncio.to_thread(_ready, url):
            return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"no evm node answering at {url}")
