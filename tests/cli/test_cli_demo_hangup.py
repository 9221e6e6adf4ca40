"""A closed terminal ends the demo as ctrl+q does: its throwaway profile is deleted.

A real `tclk-tui demo` on a pseudo-terminal, sent SIGHUP as a dropped SSH session sends it;
the test polls, with a bound, for the demo's temporary directory to go. (The daemon, which
ignores SIGHUP to outlive the terminal, is checked by tests/daemon/test_daemon_sighup.py.)"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

BOUND_S = 60.0


def _drain(leader: int, until, what: str) -> bytes:
    """Read the terminal (so the app never blocks writing to it) until `until()` holds."""
    output = b""
    deadline = time.monotonic() + BOUND_S
    while not until(output):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        ready, _, _ = select.select([leader], [], [], 0.1)
        if ready:
            try:
                output += os.read(leader, 65536)
            except OSError:  # the other side is gone
                break
    return output


def test_sighup_deletes_the_demos_throwaway_profile(tmp_path: Path):
    leader, follower = pty.openpty()
    env = dict(os.environ, TMPDIR=str(tmp_path), TERM="xterm-256color")
    proc = subprocess.Popen([sys.executable, "-m", "tclk_tui.cli", "demo"], stdin=follower,
                            stdout=follower, stderr=follower, env=env, start_new_session=True)
    os.close(follower)
    try:
        profiles = lambda: list(tmp_path.glob("tclk-demo-*"))  # noqa: E731
        # The profile exists and the app has drawn its board: the demo is up.
        _drain(leader, lambda out: profiles() and b"offers" in out, "the demo to start")
        assert proc.poll() is None
        os.kill(proc.pid, signal.SIGHUP)
        # Keep reading while it quits (it restores the terminal), until it closes its side.
        _drain(leader, lambda _out: proc.poll() is not None, "the demo to quit")
        assert proc.wait(timeout=BOUND_S) == 0
        assert profiles() == []  # deleted before the process ended, as after ctrl+q
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        os.close(leader)
