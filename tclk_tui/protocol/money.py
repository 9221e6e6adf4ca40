"""How an amount reads as money: the one format every face shows.

tclk/1 carries amounts as decimal strings of an asset's minimal units (wei for ether, a token's
smallest unit); only a rail that knows the asset knows its decimals. With them an amount reads
in the asset's own units, exactly (every digit kept, trailing zeros dropped, never rounded or
cut), so two different amounts never read alike; without them it stays in minimal units with
the asset named. Pure: the engine's views carry the strings, the faces print them.
"""

from __future__ import annotations

import re

__all__ = ["MINIMAL_UNIT", "amount_units", "minimal_text", "money_text", "units_text",
           "whole_amount"]

MINIMAL_UNIT = {"ETH": "wei"}
"""The name of an asset's minimal unit where it has one everybody uses."""
_AMOUNT_RE = re.compile(r"(0|[1-9][0-9]*)")
_MAX_DIGITS = 200


def whole_amount(amount: object) -> int | None:
    """A wire amount (decimal string of minimal units, or an int) as an int; None otherwise."""
    if isinstance(amount, bool):
        return None
    if isinstance(amount, int):
        return amount if amount >= 0 else None
    if not isinstance(amount, str) or len(amount) > _MAX_DIGITS \
            or not _AMOUNT_RE.fullmatch(amount):
        return None
    return int(amount)


def units_text(amount: int, decimals: int) -> str:
    """`amount` minimal units in whole units, exactly: (250000000000000000, 18) -> `0.25`."""
    if decimals <= 0:
        return str(amount)
    whole, frac = divmod(amount, 10**decimals)
    if not frac:
        return str(whole)
    return f"{whole}.{str(frac).rjust(decimals, '0').rstrip('0')}"


def amount_units(amount: object, decimals: int | None) -> str:
    """The number alone: `0.25` with 18 decimals; the minimal units without decimals."""
    value = whole_amount(amount)
    if value is None:
        return str(amount)  # not an amount: shown as it came, the face quotes it
    return str(value) if decimals is None else units_text(value, decimals)


def money_text(amount: object, asset: str, decimals: int | None) -> str:
    """`0.25 ETH` with known decimals; `1000 FLOP` (minimal units) without them."""
    return f"{amount_units(amount, decimals)} {asset}"


def minimal_text(amount: object, asset: str, decimals: int | None) -> str:
    """The same amount in minimal units, named: `250000000000000000 wei`, `1500000 units`."""
    value = whole_amount(amount)
    shown = str(amount) if value is None else str(value)
    if decimals is None:
        return f"{shown} {asset} (minimal units)"
    unit = MINIMAL_UNIT.get(asset, f"units of {asset}, {decimals} decimals")
    return f"{shown} {unit}"
