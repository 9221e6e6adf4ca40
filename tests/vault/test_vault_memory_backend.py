"""The in-memory backend (tests, the demo's throwaway profile) meets the vault contract."""

from __future__ import annotations

import pytest

from tclk_tui.vault import MemoryVaultBackend
from tests.vault.contract import VaultBackendContract


class TestMemoryBackendContract(VaultBackendContract):
    @pytest.fixture
    def backend(self) -> MemoryVaultBackend:
        return MemoryVaultBackend("contract")

    def reopen(self, backend: MemoryVaultBackend) -> MemoryVaultBackend:
        return backend  # its store is the object: nothing outlives it, by design
