"""A real `tclk-tui daemon` process on the rehearsal venue, and CLI calls beside it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tclk_tui.daemon.client import DaemonClient, NoDaemon
from tclk_tui.daemon.paths import socket_path
from tclk_tui.rehearsal.runner import RunningVenue
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault

PASS_ENV = "TCLK_TEST_VAULT_PASS"
PASSPHRASE = "cheap test pass phrase"  # meets the rule for a new vault


def make_vault(home: Path, profile: str) -> Vault:
    """The profile's vault file with cheap KDF costs (kept in its header)."""
    home.mkdir(parents=True, exist_ok=True)
    backend = FileVaultBackend(home / f"{profile}.vault", passphrase=lambda: PASSPHRASE,
                               kdf=KdfParams.minimum())
    vault = Vault(backend, profile=profile)
    vault.ensure_seed()
    return vault


def cli_argv(venue_url: str, home: Path, profile: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "tclk_tui.cli", "--home", str(home), "--profile", profile,
            "--venue", venue_url, "--vault", "file", "--passphrase-env", PASS_ENV, *args]


def cli_env() -> dict[str, str]:
    env = dict(os.environ, **{PASS_ENV: PASSPHRASE})
    env.pop("TCLK_CRASH_AT", None)
    return env


async def run_cli(venue_url: str, home: Path, profile: str, *args: str
                  ) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        *cli_argv(venue_url, home, profile, *args), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=cli_env())
    async with asyncio.timeout(90):
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


@dataclass
class DaemonProcess:
    """A daemon subprocess of one profile; `stop()` ends it with SIGTERM (or SIGKILL)."""

    venue_url: str
    home: Path
    profile: str
    proc: asyncio.subprocess.Process | None = None
    extra: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)  # beside cli_env()'s

    @property
    def profile_dir(self) -> Path:
        return self.home / self.profile

    @property
    def stderr_path(self) -> Path:
        return self.home / f"daemon-{self.profile}.stderr"

    @property
    def socket(self) -> Path:
        return socket_path(self.profile_dir)

    async def start(self) -> DaemonProcess:
        # stderr goes to a file, not a pipe nobody drains: a daemon that says more than a pipe
        # holds would block on the write and never reach its SIGTERM handler.
        with self.stderr_path.open("ab") as stderr:
            self.proc = await asyncio.create_subprocess_exec(
                *cli_argv(self.venue_url, self.home, self.profile, "daemon", *self.extra),
                stdout=asyncio.subprocess.DEVNULL, stderr=stderr, env={**cli_env(), **self.env})
        await self.wait_ready()
        return self

    async def wait_ready(self, timeout_s: float = 30.0) -> None:
        """Poll until the daemon answers `daemon.status` (bounded), or fail with its stderr."""
        assert self.proc is not None
        async with asyncio.timeout(timeout_s):
            while True:
                if self.proc.returncode is not None:
                    err = self.stderr_path.read_bytes()
                    raise AssertionError(f"daemon exited {self.proc.returncode}: {err!r}")
                try:
                    with DaemonClient(self.socket, timeout_s=5) as client:
                        if client.call("daemon.status")["pid"] == self.proc.pid:
                            return
                except (NoDaemon, OSError):
                    pass
                await asyncio.sleep(0.02)

    def client(self) -> DaemonClient:
        return DaemonClient(self.socket, timeout_s=60)

    async def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc is None or self.proc.returncode is not None:
            return self.proc.returncode if self.proc else 0
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(sig)
        try:
            async with asyncio.timeout(30):
                return await self.proc.wait()
        except TimeoutError:
            # Never leave a daemon behind a failed test: it would outlive the run.
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
            raise AssertionError(f"the daemon ignored signal {sig} for 30 s") from None


@pytest.fixture
def home(tmp_path: Path) -> Path:
    for profile in ("alice", "bob"):
        make_vault(tmp_path, profile)
    return tmp_path


@pytest.fixture
async def daemon(venue: RunningVenue, home: Path) -> AsyncIterator[DaemonProcess]:
    """Alice's daemon, running for the test."""
    process = DaemonProcess(venue.url, home, "alice")
    await process.start()
    try:
        yield process
    finally:
        await process.stop()
