"""`tclk-tui serve` on a real profile, as on a remote host: the rehearsal venue and another
profile's CLI in their own processes, the passphrase typed at `serve`'s own terminal (a
pseudo-terminal here), the deal accepted in the browser, and the profile's journal read after.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from tclk_tui.cli import PASSPHRASE_VAR
from tclk_tui.tui.deliberate import DeliberateKeys
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault
from tests.serve.browser import KEEP_TERMINAL, PAINT_TIMEOUT_S, Page
from tests.serve.conftest import ROOT, free_port
from tests.serve.terminal import PseudoTerminal

# Long and distinctive, so finding it in a command line cannot be a coincidence.
PASSPHRASE = "violet-anchor-7391-quietly"
PASS_ENV = "TCLK_TEST_SERVE_PASS"


def make_vault(home: Path, profile: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    backend = FileVaultBackend(home / f"{profile}.vault", passphrase=lambda: PASSPHRASE,
                               kdf=KdfParams.minimum())
    Vault(backend, profile=profile).ensure_seed()


def cli(home: Path, venue: str, profile: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), PASS_ENV: PASSPHRASE}
    return subprocess.run(
        [sys.executable, "-m", "tclk_tui.cli", "--home", str(home), "--profile", profile,
         "--venue", venue, "--vault", "file", "--passphrase-env", PASS_ENV, *args],
        capture_output=True, text=True, timeout=120, env=env, cwd=str(ROOT))


@contextlib.contextmanager
def rehearsal_venue() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "tclk_tui.cli", "venue", "--port", str(port)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=str(ROOT), start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, "the rehearsal venue exited"
            try:
                httpx.get(f"{url}/r/tclk-offers/export", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the rehearsal venue never answered"
                time.sleep(0.05)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)


def group_command_lines(leader: int) -> list[list[str]]:
    """The argv of every process in `leader`'s process group (Linux /proc)."""
    lines = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = (entry / "stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[2]) == leader:  # pgrp
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                lines.append([part.decode(errors="replace") for part in argv if part])
    return lines


def test_a_real_profile_served_asks_its_passphrase_once_and_accepts_a_deal(tmp_path, browser):
    home = tmp_path / "home"
    for profile in ("alice", "bob"):
        make_vault(home, profile)
    with rehearsal_venue() as venue:
        posted = cli(home, venue, "bob", "offer", "--amount", "4321", "--asset", "FLOP",
                     "--rails", "paper", "--json")
        assert posted.returncode == 0, posted.stderr
        offer = json.loads(posted.stdout)["deal"]

        port = free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop(PASS_ENV, None)
        with PseudoTerminal([sys.executable, "-m", "tclk_tui.cli", "--home", str(home),
                             "--profile", "alice", "--venue", venue, "--vault", "file",
                             "serve", "--port", str(port)], env=env, cwd=ROOT) as terminal:
            terminal.wait_for(r"passphrase for the alice vault: ")
            terminal.type(PASSPHRASE + "\n")
            terminal.wait_for(rf"serving the wallet app for profile alice at "
                              rf"http://127\.0\.0\.1:{port}/")
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            raw = context.new_page()
            raw.add_init_script(KEEP_TERMINAL)
            raw.goto(f"http://127.0.0.1:{port}/")
            page = Page(raw)
            board = page.wait_for(r"1 shown of 1 offer\b", PAINT_TIMEOUT_S)
            assert re.search(r"4321 FLOP\s+hash\s+paper", board), board

            # The served app got the passphrase through its environment, never its argv.
            lines = group_command_lines(terminal.pid)
            served = [argv for argv in lines
                      if argv[-2:] == ["--passphrase-env", PASSPHRASE_VAR]
                      and argv[-6:-2] == ["--vault", "file", "--home", str(home)]]
            assert served, lines
            assert not any(PASSPHRASE in part for argv in lines for part in argv), lines

            # A second page runs a second app, which attaches to the first (the owner).
            second = context.new_page()
            second.add_init_script(KEEP_TERMINAL)
            second.goto(f"http://127.0.0.1:{port}/")
            Page(second).wait_for(r"1 shown of 1 offer\b", PAINT_TIMEOUT_S)
            second.close()

            raw.focus(".xterm-helper-textarea")
            raw.keyboard.press("a")
            page.wait_for(r"Accept this offer\?")
            page.read_for(DeliberateKeys.REACTION_S, r"Accept this offer\?")
            page.confirm("y", r"Accept this offer\?", r"accepted \d\d:\d\d me")
            context.close()
            assert terminal.stop() == 0

        # The profile's own journal, read by the CLI once the served app has let it go.
        deals = cli(home, venue, "alice", "deals", "--json")
        assert deals.returncode == 0, deals.stderr
        mine = {d["deal"]: d for d in json.loads(deals.stdout)["deals"]}
        assert offer in mine, mine
        assert mine[offer]["status"] == "accepted" and mine[offer]["role"] == "payee"
