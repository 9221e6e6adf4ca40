"""The data and profile directories are created 0700, parents included, whatever the umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault
from tests.engine.helpers import open_wallet


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_a_fresh_home_and_profile_are_private(venue, tmp_path, clock):
    home = tmp_path / "fresh" / "home"
    old = os.umask(0o022)
    try:
        wallet = await open_wallet(venue.url, home, "alice", clock=clock)
        await wallet.close()
    finally:
        os.umask(old)
    for directory in (tmp_path / "fresh", home, home / "alice"):
        assert _mode(directory) == 0o700, directory
    assert _mode(home / "alice" / "journal.sqlite3") == 0o600


def test_a_vault_file_in_a_new_directory_makes_every_directory_private(tmp_path):
    home = tmp_path / "a" / "b"
    old = os.umask(0o002)
    try:
        backend = FileVaultBackend(home / "p.vault", passphrase=lambda: "pw",
                                   kdf=KdfParams.minimum())
        Vault(backend, profile="p").ensure_seed()
    finally:
        os.umask(old)
    assert _mode(tmp_path / "a") == 0o700 and _mode(home) == 0o700
    assert _mode(home / "p.vault") == 0o600
