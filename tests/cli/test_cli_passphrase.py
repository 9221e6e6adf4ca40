"""A new encrypted vault asks for its passphrase twice on a terminal, and refuses a mismatch."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path


def _run_on_a_terminal(home: Path, answers: list[str]) -> tuple[int, str]:
    leader, follower = pty.openpty()
    env = dict(os.environ, TCLK_HOME=str(home))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tclk_tui.cli", "--vault", "file", "--venue",
         "http://127.0.0.1:9", "identity"],
        stdin=follower, stdout=follower, stderr=follower, env=env, start_new_session=True)
    os.close(follower)
    output = b""
    pending = list(answers)
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        # Answer only a prompt that is waiting: getpass flushes input typed before it asks.
        if pending and output.endswith(b": "):
            os.write(leader, pending.pop(0).encode() + b"\n")
    os.close(leader)
    return proc.wait(timeout=60), output.decode(errors="replace")


def test_mismatched_new_passphrases_create_nothing(tmp_path):
    code, text = _run_on_a_terminal(tmp_path, ["first secret", "second secret"])
    assert code == 1
    assert "new passphrase" in text and "the same passphrase again" in text
    assert "differ" in text and "Traceback" not in text
    assert not (tmp_path / "default.vault").exists()


def test_matching_new_passphrases_create_the_vault(tmp_path):
    code, text = _run_on_a_terminal(tmp_path, ["same secret", "same secret"])
    # The venue is unreachable, but the vault was created before the wallet tried the venue.
    assert (tmp_path / "default.vault").exists()
    assert "cannot reach the venue" in text and code == 1
    assert "same secret" not in text  # getpass never echoes
