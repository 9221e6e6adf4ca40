"""Real wallets on a real rehearsal venue: file vaults (cheap KDF), SQLite journals, loopback."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from tclk_tui.engine.views import OfferDraft
from tclk_tui.engine.wallet import Wallet
from tclk_tui.rails.base import SettlementRail
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault


class Clock:
    """A hand-moved clock in Unix ms, shared by wallets, rails and the venue when needed."""

    def __init__(self, start_ms: int) -> None:
        self.ms = start_ms

    def __call__(self) -> int:
        return self.ms

    def advance(self, ms: int) -> None:
        self.ms += ms


def file_vault(path: Path, profile: str) -> Vault:
    backend = FileVaultBackend(path / f"{profile}.vault", passphrase=lambda: "correct horse",
                               kdf=KdfParams.minimum())
    return Vault(backend, profile=profile)


async def open_wallet(venue_url: str, data_dir: Path, profile: str, *,
                      clock: Callable[[], int], rails: dict[str, SettlementRail] | None = None,
                      follow: bool = False) -> Wallet:
    return await Wallet.open(profile, venue_url=venue_url, data_dir=data_dir,
                             vault=file_vault(data_dir, profile), clock_ms=clock, rails=rails,
                             follow=follow)


def draft(**overrides: str) -> OfferDraft:
    fields = {"role": "payer", "amount": "250000", "asset": "FLOP", "lock": "hash",
              "rails": "paper", "claim_in_s": "3600", "refund_gap_s": "3600",
              "expires_in_s": "600"}
    fields.update(overrides)
    return OfferDraft(**fields)


async def until(predicate: Callable[[], bool], *, timeout_s: float = 5.0,
                step: Callable[[], object] | None = None) -> None:
    """Poll a condition (optionally running an async step each round) within a bound."""
    async with asyncio.timeout(timeout_s):
        while not predicate():
            if step is not None:
                result = step()
                if asyncio.iscoroutine(result):
                    await result
            await asyncio.sleep(0.01)
