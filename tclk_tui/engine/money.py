"""Amounts as this wallet's faces show them: one place that decides, every face prints it.

An amount on the wire is minimal units of its asset. A rail of this wallet that settles the
asset and knows its decimals (evm-htlc: ether's 18, each configured token's own) makes it read
in the asset's units, exactly (`tclk_tui.protocol.money`); otherwise it stays in minimal units,
the asset named. The views (`DealView`, `OfferRow`) carry the strings, so no face computes
them and every face shows the same ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from tclk_tui.protocol.money import amount_units, minimal_text, money_text
from tclk_tui.protocol.rails import rail_in_offer
from tclk_tui.rails.base import SettlementRail

__all__ = ["AmountReader", "Money", "decimals_for", "money", "money_reader"]


@dataclass(frozen=True, slots=True)
class Money:
    text: str  # `0.25 ETH`; `1000 FLOP` when the decimals are not known here
    minimal: str  # `250000000000000000 wei`; `1000 FLOP (minimal units)`
    decimals: int | None

    @property
    def gate_text(self) -> str:
        """Both, for a gate: `0.25 ETH (250000000000000000 wei)`; `1000 FLOP (minimal units)`."""
        return self.minimal if self.decimals is None else f"{self.text} ({self.minimal})"


def decimals_for(asset: str, rail_ids: Iterable[str],
                 rails: Mapping[str, SettlementRail]) -> int | None:
    """The asset's decimals from the first of `rail_ids` this wallet has that knows them."""
    for rail_id in rail_ids:
        for canonical, rail in rails.items():
            if canonical == rail_id or rail_in_offer([rail_id], canonical):
                decimals = rail.asset_decimals(asset)
                if decimals is not None:
                    return decimals
    return None


def money(amount: object, asset: str, rail_ids: Iterable[str],
          rails: Mapping[str, SettlementRail]) -> Money:
    """How `amount` of `asset` reads, on the first of `rail_ids` that knows the asset."""
    decimals = decimals_for(asset, rail_ids, rails)
    return Money(text=money_text(amount, asset, decimals),
                 minimal=minimal_text(amount, asset, decimals), decimals=decimals)


AmountReader = Callable[[object, str, tuple[str, ...]], tuple[str, str]]


def money_reader(rails: Mapping[str, SettlementRail]) -> AmountReader:
    """(`0.25`, `0.25 ETH`) for the board, which reads every offer once: the decimals of each
    (asset, rails) pair are looked up once (a bounded cache: strangers name what they like)."""
    @lru_cache(maxsize=512)
    def decimals(asset: str, rail_ids: tuple[str, ...]) -> int | None:
        return decimals_for(asset, rail_ids, rails)

    def read(amount: object, asset: str, rail_ids: tuple[str, ...]) -> tuple[str, str]:
        places = decimals(asset, rail_ids)
        return amount_units(amount, places), money_text(amount, asset, places)

    return read
