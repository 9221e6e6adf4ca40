"""Running the real CLI in a subprocess against profiles with cheap file vaults."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault

PASS_ENV = "TCLK_TEST_VAULT_PASS"
PASSPHRASE = "cheap test pass phrase"  # meets the rule for a new vault


def vault_of(home: Path, profile: str) -> Vault:
    """The profile's vault file with cheap KDF costs (kept in its header)."""
    backend = FileVaultBackend(home / f"{profile}.vault", passphrase=lambda: PASSPHRASE,
                               kdf=KdfParams.minimum())
    return Vault(backend, profile=profile)


def make_vault(home: Path, profile: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    vault_of(home, profile).ensure_seed()


async def run_cli(venue_url: str, home: Path, profile: str, *args: str) -> tuple[int, str, str]:
    env = dict(os.environ, **{PASS_ENV: PASSPHRASE})
    env.pop("TCLK_CRASH_AT", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tclk_tui.cli", "--home", str(home), "--profile", profile,
        "--venue", venue_url, "--vault", "file", "--passphrase-env", PASS_ENV, *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    return proc.returncode, out.decode(), err.decode()
