"""`tclk-tui serve` run as the operator runs it: a real process on a free loopback port, stopped
with SIGTERM as ctrl+c or a closing SSH session stops it, and its process group killed if that
did not end it."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.serve.browser import chromium

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Served:
    process: subprocess.Popen[str]
    port: int
    lines: list[str] = field(default_factory=list)
    _queue: queue.Queue[str | None] = field(default_factory=queue.Queue)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for_line(self, prefix: str, timeout_s: float = START_TIMEOUT_S) -> str:
        """The first printed line starting with `prefix` (bounded); what was printed if none."""
        deadline = time.monotonic() + timeout_s
        for line in self.lines:
            if line.startswith(prefix):
                return line
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
            if line.startswith(prefix):
                return line
        raise AssertionError(f"serve never printed {prefix!r}; it printed:\n"
                             + "\n".join(self.lines))

    def stop(self) -> int:
        """SIGTERM, as ctrl+c or a closed SSH session ends it; its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=STOP_TIMEOUT_S)


@contextlib.contextmanager
def serving(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Served]:
    """`tclk-tui serve <args> --port <free>` listening; stopped and its group killed after."""
    port = free_port()
    # The demo serves its profile's control socket from the user's runtime dir: a dir of the
    # test's own, so a served demo's TMPDIR holds nothing but its throwaway profile.
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "TCLK_HOME": str(tmp_path / "home"),
                   "XDG_RUNTIME_DIR": str(runtime), **(env or {})}
    environment.pop("TCLK_CRASH_AT", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "tclk_tui.cli", "serve", *args, "--port", str(port)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=environment, cwd=str(ROOT), start_new_session=True)
    served = Served(process, port)
    threading.Thread(target=served._pump, daemon=True).start()
    try:
        served.wait_for_line("serving ")
        yield served
    finally:
        try:
            served.stop()
        finally:
            # Whatever the server left (a served app that did not quit) goes with its group.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=STOP_TIMEOUT_S)


@pytest.fixture
def demo_tmp(tmp_path: Path) -> Path:
    """The served demos' temporary directory, to see their throwaway profiles come and go."""
    path = tmp_path / "tmp"
    path.mkdir()
    return path


@pytest.fixture
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # Root in a container: chromium's own sandbox needs user namespaces it may not have.
        # Its password store stays its own: CI's session bus runs a Secret Service.
        instance = playwright.chromium.launch(executable_path=chromium(), headless=True,
                                              args=["--no-sandbox", "--password-store=basic"])
        try:
            yield instance
        finally:
            instance.close()
