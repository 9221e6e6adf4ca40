"""The app's own first run on a terminal with no keyring: the same passphrase rule and double
ask as the CLI (before the screen is drawn), then, on the screen, where the secrets are and
which keys back up the seed."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from tclk_tui.vault.strength import RULE

STRONG = "correct horse battery staple"
BOUND_S = 60.0


def test_the_app_asks_twice_refuses_a_weak_passphrase_and_nudges_a_backup(tmp_path: Path):
    leader, follower = pty.openpty()
    env = dict(os.environ, TCLK_HOME=str(tmp_path), TERM="xterm-256color")
    env.pop("TCLK_PASSPHRASE", None)
    proc = subprocess.Popen([sys.executable, "-m", "tclk_tui.cli", "--vault", "file",
                             "--venue", "http://127.0.0.1:9"], stdin=follower, stdout=follower,
                            stderr=follower, env=env, start_new_session=True)
    os.close(follower)
    answers = ["pw", STRONG, STRONG]
    output = b""
    deadline = time.monotonic() + BOUND_S
    try:
        while b"first run" not in output:
            assert time.monotonic() < deadline, output[-2000:]
            ready, _, _ = select.select([leader], [], [], 0.1)
            if not ready:
                continue
            output += os.read(leader, 65536)
            if answers and output.endswith(b": "):  # a getpass prompt, before the app draws
                os.write(leader, answers.pop(0).encode() + b"\n")
        text = " ".join(output.decode(errors="replace").split())
        assert " ".join(RULE.split()) in text  # "pw" was refused with the rule, then asked again
        assert "the same passphrase again" in text and (tmp_path / "default.vault").exists()
        assert STRONG not in text
        os.write(leader, b"\x11")  # ctrl+q
        while proc.poll() is None:
            assert time.monotonic() < deadline
            ready, _, _ = select.select([leader], [], [], 0.1)
            if ready:
                try:
                    output += os.read(leader, 65536)
                except OSError:
                    break
        assert proc.wait(timeout=BOUND_S) == 0
        # Left on the terminal after the app quits: the same words, with the CLI's command.
        assert b"vault backup --yes --out FILE" in output.replace(b"\r\n", b" ")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        os.close(leader)
