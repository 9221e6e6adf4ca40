"""The profile's Ed25519 identity, derived from its master seed (so the one seed backup restores
the DID too) and cached in the vault like every derived secret."""

from __future__ import annotations

from tclk_tui.technocore.identity import Identity
from tclk_tui.vault.secret import MasterSeed
from tclk_tui.vault.seed import Vault, derive_bytes

IDENTITY_ENTRY = "identity-ed25519"
IDENTITY_DOMAIN = "tclk-tui identity ed25519 v1"


def identity_of(seed: MasterSeed) -> Identity:
    """The identity a master seed derives: what a restored backup makes this profile."""
    return Identity.from_seed(derive_bytes(seed, IDENTITY_DOMAIN))


def held_identity(vault: Vault) -> Identity | None:
    """The identity the vault holds (cached at the profile's first opening), if any."""
    seed = vault.backend.get(IDENTITY_ENTRY)
    return None if seed is None else Identity.from_seed(bytes(seed))


def load_identity(vault: Vault) -> Identity:
    """The profile's identity, derived from the master seed and cached on first use."""
    backend = vault.backend
    seed = backend.get(IDENTITY_ENTRY)
    if seed is None:
        seed = derive_bytes(vault.master_seed(), IDENTITY_DOMAIN)
        backend.put(IDENTITY_ENTRY, seed)
    return Identity.from_seed(bytes(seed))
