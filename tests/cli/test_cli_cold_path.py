"""The CLI's cold path stays light: `--help`, and a command a running owner answers, import
neither the app, the venue client, the rails (the EVM libraries above all) nor an event loop.

Measured when this test was written (fresh interpreter, `sys.modules` at exit): those paths load
the registry's declarations, the pure protocol core (coincurve and libsodium with it), sqlite3
for the engine's error types, and, answered by an owner, the socket client; a refusal's mapping
adds the vault package (keyring, logging). Everything in FORBIDDEN was absent; each entry costs
tens to thousands of milliseconds of start-up for every call, which is why it is pinned.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from tclk_tui.daemon.service import serve_wallet
from tests.engine.helpers import Clock, open_wallet

FORBIDDEN_TOPS = frozenset({
    "textual", "rich", "textual_serve",  # the app
    "httpx", "httpcore", "h11", "anyio",  # the venue client
    "asyncio",  # an event loop: an owner's answer is one blocking socket call
    "starlette", "uvicorn",  # the rehearsal venue and `serve`
    "eth_account", "eth_abi", "eth_utils", "eth_keys", "eth_hash", "py_ecc",  # evm-htlc
    "vyper", "cryptography", "mcp", "pydantic", "jsonschema",
})
FORBIDDEN_PACKAGE = ("tclk_tui.tui", "tclk_tui.rails", "tclk_tui.store", "tclk_tui.rehearsal",
                     "tclk_tui.technocore.client", "tclk_tui.technocore.e2e",
                     "tclk_tui.engine.wallet", "tclk_tui.engine.deal", "tclk_tui.agents.desk",
                     "tclk_tui.agents.room", "tclk_tui.daemon.server")

PROBE = """
import atexit, json, os, sys
atexit.register(lambda: open(os.environ["TCLK_TEST_MODULES"], "w").write(
    json.dumps(sorted(sys.modules))))
from tclk_tui.cli import main
sys.exit(main(sys.argv[1:]))
"""


def heavy(modules: list[str]) -> list[str]:
    return sorted(m for m in modules
                  if m.split(".")[0] in FORBIDDEN_TOPS
                  or any(m == p or m.startswith(p + ".") for p in FORBIDDEN_PACKAGE))


async def cold_call(tmp_path: Path, *args: str) -> tuple[int, str, list[str]]:
    listing = tmp_path / f"modules-{len(list(tmp_path.glob('modules-*')))}.json"
    env = dict(os.environ, TCLK_TEST_MODULES=str(listing))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", PROBE, *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode() + err.decode(), json.loads(listing.read_text())


@pytest.mark.parametrize("args", [("--help",), ("board", "--help"), ("vote", "--help")])
async def test_help_imports_nothing_heavy(tmp_path: Path, args: tuple[str, ...]) -> None:
    code, out, modules = await cold_call(tmp_path, *args)
    assert code == 0 and "usage: tclk-tui" in out
    assert "tclk_tui.engine.commands" in modules  # the probe saw the CLI build itself
    assert heavy(modules) == []


async def test_a_command_an_owner_answers_imports_nothing_heavy(venue, tmp_path: Path) -> None:
    wallet = await open_wallet(venue.url, tmp_path, "alice", clock=Clock(1_700_000_000_000))
    base = ("--home", str(tmp_path), "--profile", "alice", "--venue", venue.url, "--json")
    try:
        async with serve_wallet(wallet, tmp_path / "alice"):
            for args, exit_code, answered in (
                    (("identity",), 0, wallet.did), (("board",), 0, '"offers": []'),
                    (("status", "0xdead"), 1, '"kind": "not-found"')):
                code, out, modules = await cold_call(tmp_path, *base, *args)
                assert code == exit_code and answered in out, out
                assert "tclk_tui.daemon.client" in modules  # answered through the socket
                assert heavy(modules) == [], args
    finally:
        await wallet.close()


def test_the_forbidden_list_catches_what_the_app_imports() -> None:
    import subprocess

    script = "import sys, tclk_tui.tui.app, tclk_tui.engine.wallet; print('\\n'.join(sys.modules))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120, check=True)
    found = heavy(result.stdout.split())
    assert {"textual", "httpx", "asyncio", "tclk_tui.engine.wallet"} <= {
        m.split(".")[0] if not m.startswith("tclk_tui") else m for m in found}
