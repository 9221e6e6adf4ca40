"""The offer form typed in a real terminal: the demo app runs in tmux, keys arrive through a
pseudo-terminal at a person's speeds and in bursts, and the screen is read back from tmux.

A pilot cannot show this: its `press` waits for the app to settle after every key, so it never
sees the keys that arrive while focus is still moving.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Seconds between keys: a burst (every key in one write), fast typing, ordinary typing.
SPEEDS = (0.0, 0.02, 0.08)
ROUNDS = 3


class Tmux:
    def __init__(self, socket: str, session: str) -> None:
        self.socket = socket
        self.session = session

    def run(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], check=True,
                             capture_output=True, text=True, timeout=30)
        return out.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.session)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.session, *keys)

    def literal(self, text: str) -> None:
        self.run("send-keys", "-t", self.session, "-l", text)

    def wait_for(self, pattern: str, *, timeout_s: float = 60.0) -> str:
        """Poll the screen until `pattern` shows (bounded)."""
        deadline = time.monotonic() + timeout_s
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if re.search(pattern, screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} never showed; the screen was:\n{screen}")


@pytest.fixture
def demo_in_tmux(tmp_path: Path) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "tmux is needed (.ci/run installs it)"
    socket = f"tclk-test-{uuid.uuid4().hex[:8]}"
    tmux = Tmux(socket, "demo")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "screen", "NO_COLOR": "1",
           "TCLK_HOME": str(tmp_path)}
    command = f"{sys.executable} -m tclk_tui.cli demo"
    subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "demo",
                    "-x", "80", "-y", "24", command], check=True, env=env, timeout=30,
                   cwd=str(ROOT))
    try:
        yield tmux
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], check=False, timeout=30,
                       capture_output=True)


def field(screen: str, label: str) -> str:
    match = re.search(rf"│\s*{re.escape(label)}\s+(.*?)\s*│", screen)
    assert match, f"no {label} row on the screen:\n{screen}"
    return match.group(1)


def type_slowly(tmux: Tmux, parts: list[str], delay: float) -> None:
    """Type `parts` (text, or tmux key names such as Tab) with `delay` seconds between keys;
    a delay of 0 sends them all in one write, as a paste or a fast typist's burst arrives."""
    if delay == 0:
        tmux.keys(*parts)
        return
    for part in parts:
        for key in ([part] if part == "Tab" else list(part)):
            tmux.keys(key)
            time.sleep(delay)


def test_flop_tab_paper_fills_asset_and_rails_at_every_speed(demo_in_tmux: Tmux) -> None:
    tmux = demo_in_tmux
    tmux.wait_for(r"shown of \d+ offers")
    for delay in SPEEDS:
        for _ in range(ROUNDS):
            tmux.keys("n")
            tmux.wait_for(r"New offer \(checked")
            # Focus starts on the amount; one Tab reaches the asset.
            type_slowly(tmux, ["1000", "Tab", "FLOP", "Tab", "paper"], delay)
            screen = tmux.wait_for(r"rails\s+paper\b|rails\s+\S*FLOP|asset\s+\S*paper")
            assert field(screen, "amount") == "1000", (delay, screen)
            assert field(screen, "asset") == "FLOP", (delay, screen)
            assert field(screen, "rails") == "paper", (delay, screen)
            tmux.keys("Escape")
            tmux.wait_for(r"shown of \d+ offers")
