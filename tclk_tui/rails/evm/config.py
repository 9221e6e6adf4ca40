"""A profile's evm-htlc settings, and what the chain says about one announced lock.

Their own module so every part of the rail (its reads, its sends, the facade) can name them
without importing the facade.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from eth_utils import to_checksum_address

from tclk_tui.rails.base import LockReport as BaseLockReport

from .escrow import OnChainLock
from .token import TokenAsset
from .tx import FeeCap

__all__ = ["EvmConfig", "LockReport"]


@dataclass(frozen=True, slots=True)
class EvmConfig:
    """Per-profile settings: which node, which chain, which escrow, how many confirmations,
    which tokens it trades, and the most it pays per gas."""

    url: str
    chain_id: int
    escrow: str
    confirmations: int = 1
    assets: Mapping[str, TokenAsset] = field(default_factory=dict)
    max_fee_gwei: Decimal = Decimal(200)
    max_priority_fee_gwei: Decimal = Decimal(3)

    def __post_init__(self) -> None:
        if self.confirmations < 1:
            raise ValueError("confirmations must be at least 1")
        object.__setattr__(self, "escrow", to_checksum_address(self.escrow))
        object.__setattr__(self, "max_fee_gwei", Decimal(str(self.max_fee_gwei)))
        object.__setattr__(self, "max_priority_fee_gwei",
                           Decimal(str(self.max_priority_fee_gwei)))
        self.fee_cap  # noqa: B018 (checks the two caps)

    @property
    def fee_cap(self) -> FeeCap:
        return FeeCap.gwei(self.max_fee_gwei, self.max_priority_fee_gwei)


@dataclass(frozen=True, slots=True)
class LockReport(BaseLockReport):
    """What the chain says about one announced lock, with the first rule it breaks (if any)."""

    lock: OnChainLock | None = field(default=None, repr=False)
