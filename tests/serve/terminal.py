"""A command on a pseudo-terminal that is its controlling terminal, as when an operator runs
it over SSH: `getpass` prompts there, and what it prints is read back."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import signal
import subprocess
import termios
import time
from pathlib import Path
from types import TracebackType

STOP_TIMEOUT_S = 60.0


def _take_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PseudoTerminal:
    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: Path) -> None:
        self._argv, self._env, self._cwd = argv, env, cwd
        self.output = ""

    def __enter__(self) -> PseudoTerminal:
        master, slave = os.openpty()
        self._master = master
        self.process = subprocess.Popen(self._argv, stdin=slave, stdout=slave, stderr=slave,
                                        env=self._env, cwd=str(self._cwd),
                                        start_new_session=True, preexec_fn=_take_terminal)
        os.close(slave)
        return self

    @property
    def pid(self) -> int:
        return self.process.pid

    def _read(self, timeout_s: float) -> None:
        ready, _, _ = select.select([self._master], [], [], timeout_s)
        if ready:
            with contextlib.suppress(OSError):  # EIO once the other side has closed
                self.output += os.read(self._master, 65536).decode(errors="replace")

    def wait_for(self, pattern: str, timeout_s: float = 60.0) -> str:
        deadline = time.monotonic() + timeout_s
        while not re.search(pattern, self.output):
            left = deadline - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                self._read(0)
                if re.search(pattern, self.output):
                    break
                raise AssertionError(f"{pattern!r} never showed; the terminal showed:\n"
                                     f"{self.output}")
            self._read(min(left, 0.1))
        return self.output

    def type(self, text: str) -> None:
        os.write(self._master, text.encode())

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.1)  # keep the terminal drained so nothing blocks on writing to it
        return self.process.wait(timeout=1)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.stop()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT_S)
            os.close(self._master)
