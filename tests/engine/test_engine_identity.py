"""A profile's identity comes from its master seed and is bound to its journal."""

from __future__ import annotations

import pytest

from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.wallet import Wallet
from tclk_tui.vault.backend import MemoryVaultBackend
from tclk_tui.vault.seed import Vault
from tests.engine.helpers import file_vault


async def _open(venue, tmp_path, vault, clock):
    return await Wallet.open("dana", venue_url=venue.url, data_dir=tmp_path, vault=vault,
                             clock_ms=clock, follow=False)


async def test_the_seed_backup_alone_restores_the_did(venue, tmp_path, clock):
    wallet = await _open(venue, tmp_path, file_vault(tmp_path, "dana"), clock)
    did, backup = wallet.did, wallet.vault.export_seed()
    await wallet.close()
    fresh = Vault(MemoryVaultBackend(), profile="dana")
    fresh.restore_seed(backup)
    again = await _open(venue, tmp_path, fresh, clock)
    try:
        assert again.did == did
    finally:
        await again.close()


async def test_an_empty_vault_never_mints_a_new_identity_for_a_known_profile(venue, tmp_path,
                                                                             clock):
    wallet = await _open(venue, tmp_path, file_vault(tmp_path, "dana"), clock)
    await wallet.close()
    empty = Vault(MemoryVaultBackend(), profile="dana")
    with pytest.raises(EngineError, match="holds none of its secrets"):
        await _open(venue, tmp_path, empty, clock)
    assert not empty.has_seed()


async def test_another_profiles_vault_is_refused(venue, tmp_path, clock):
    wallet = await _open(venue, tmp_path, file_vault(tmp_path, "dana"), clock)
    await wallet.close()
    other = Vault(MemoryVaultBackend(), profile="dana")
    other.ensure_seed()
    with pytest.raises(EngineError, match="wrong vault or wrong profile"):
        await _open(venue, tmp_path, other, clock)


async def test_the_seed_of_a_profile_with_an_identity_is_never_replaced(venue, tmp_path, clock):
    """The backup the app shows must always restore its profile: no seed swap under an
    identity that derives from the old one."""
    wallet = await _open(venue, tmp_path, file_vault(tmp_path, "dana"), clock)
    try:
        did, backup = wallet.did, wallet.vault.export_seed()
        other = Vault(MemoryVaultBackend(), profile="x")
        other.ensure_seed()
        request = wallet.request_seed_restore(other.export_seed())
        with pytest.raises(GateRefused, match="already uses its master seed"):
            wallet.confirm_seed_restore(request, "replace")
        assert wallet.vault.export_seed() == backup
    finally:
        await wallet.close()
    fresh = Vault(MemoryVaultBackend(), profile="dana")
    fresh.restore_seed(backup)
    again = await _open(venue, tmp_path, fresh, clock)
    try:
        assert again.did == did
    finally:
        await again.close()
