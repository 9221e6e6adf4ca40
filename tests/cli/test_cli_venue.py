"""`tclk-tui venue` says where it listens and the exact option that points the app at it."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys

import httpx


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_venue_prints_its_url_and_how_to_point_the_app_at_it(tmp_path):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tclk_tui.cli", "venue", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]  # blocks until said, or EOF
        url = f"http://127.0.0.1:{port}"
        assert f"listening on {url}" in lines[0]
        assert lines[1].split(":", 1)[1].split() == ["tclk-tui", "--venue", url]
        assert lines[2].split(":", 1)[1].split() == ["export", f"TCLK_VENUE={url}"]
        # The URL it printed is a venue that answers (the socket was bound before it said so).
        assert httpx.get(f"{url}/healthz", timeout=10).text == "ok\n"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    # The flag and the variable it names are the app's own.
    help_text = subprocess.run([sys.executable, "-m", "tclk_tui.cli", "--help"],
                               capture_output=True, text=True, check=True).stdout
    assert re.search(r"--venue VENUE", help_text)
