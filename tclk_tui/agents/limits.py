"""A manifest's limits applied to one call, before the engine acts: each refusal names its rule.

Pure functions over the manifest, the public facts of the offer or deal in question, and what
the agent has spent (read from the journal by the caller), so a test can state every rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tclk_tui.agents.errors import ToolRefused
from tclk_tui.agents.manifest import Manifest
from tclk_tui.engine.rail_ids import canonical_rail

DAY_MS = 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class Spend:
    """What an agent spent in the rolling 24 h window: in all, and of the asset in question."""

    total_24h: int
    asset_24h: int


@dataclass(frozen=True, slots=True)
class Commitment:
    """What a call would commit the wallet to: pay `amount` of `asset` to `counterparty`."""

    amount: int
    asset: str
    rails: tuple[str, ...]
    counterparty: str | None
    pays: bool  # our side is the payer


def amount_of(text: str) -> int:
    """An amount an agent names, as a number of minimal units, or the refusal saying what one
    is (`²` and `٣` are digits to Python's `isdigit`, not to the protocol)."""
    if not (text.isascii() and text.isdigit()) or (len(text) > 1 and text.startswith("0")):
        raise ToolRefused("params.amount", "amount is a whole number of minimal units (ASCII "
                          f"digits, no leading 0), not {text[:40]!r}")
    return int(text)


def commitment(facts: dict[str, Any], *, our_role: str, counterparty: str | None,
               rails: tuple[str, ...] | None = None) -> Commitment:
    amount = str(facts.get("amount", "0"))
    return Commitment(amount=int(amount) if amount.isascii() and amount.isdigit() else 0,
                      asset=str(facts.get("asset", "")),
                      rails=tuple(rails if rails is not None else facts.get("rails", ())),
                      counterparty=counterparty, pays=our_role == "payer")


def _allowed(manifest: Manifest) -> frozenset[str] | None:
    return None if manifest.rails is None else frozenset(map(canonical_rail, manifest.rails))


def check_rails(manifest: Manifest, rails: tuple[str, ...]) -> None:
    """Every rail the engine may settle this call's deal on is on the allow-list: one rail
    outside it is one the engine (or the counterparty) could pick."""
    allowed = _allowed(manifest)
    if allowed is None:
        return
    outside = [r for r in rails if canonical_rail(r) not in allowed]
    if outside:
        raise ToolRefused("rails", f"rail {canonical_rail(outside[0])} is not on the agent's "
                          f"rail allow-list ({', '.join(manifest.rails or ()) or 'empty'})")


def check_some_rail(manifest: Manifest, rails: tuple[str, ...]) -> None:
    """At least one of these rails is allowed: for a deal whose rail the agent names later
    (a payer's lock), where that choice is checked in its turn."""
    allowed = _allowed(manifest)
    if allowed is None or any(canonical_rail(r) in allowed for r in rails):
        return
    raise ToolRefused("rails", f"none of the rails {', '.join(rails) or '(none)'} is on the "
                      f"agent's rail allow-list ({', '.join(manifest.rails or ()) or 'empty'})")


def check_counterparty(manifest: Manifest, did: str | None) -> None:
    if did is None:
        return
    if did in manifest.deny:
        raise ToolRefused("counterparties.deny", f"{did[:24]}… is on the agent's deny list")
    if manifest.allow and did not in manifest.allow:
        raise ToolRefused("counterparties.allow",
                          f"{did[:24]}… is not on the agent's allow list")


def check_open_deals(manifest: Manifest, open_deals: int) -> None:
    if manifest.max_open_deals is not None and open_deals >= manifest.max_open_deals:
        raise ToolRefused("max_open_deals", f"the agent already has {open_deals} open deal(s), "
                          f"its limit is {manifest.max_open_deals}")


def check_spend(manifest: Manifest, c: Commitment, spent: Spend) -> None:
    if not c.pays:
        return
    caps = manifest.caps
    if caps.per_deal is not None and c.amount > caps.per_deal:
        raise ToolRefused("caps.per_deal", f"{c.amount} {c.asset} is over the per-deal cap of "
                          f"{caps.per_deal}")
    if caps.per_24h is not None and spent.total_24h + c.amount > caps.per_24h:
        raise ToolRefused("caps.per_24h", f"{spent.total_24h} spent in the last 24 h plus "
                          f"{c.amount} is over the cap of {caps.per_24h}")
    if caps.assets is not None:
        if c.asset not in caps.assets:
            raise ToolRefused("caps.assets", f"asset {c.asset} is not in the agent's asset caps")
        cap = caps.assets[c.asset]
        if spent.asset_24h + c.amount > cap:
            raise ToolRefused(f"caps.assets.{c.asset}", f"{spent.asset_24h} {c.asset} spent in "
                              f"the last 24 h plus {c.amount} is over the cap of {cap}")


def check_commitment(manifest: Manifest, c: Commitment, spent: Spend, open_deals: int | None
                     ) -> None:
    """Every rule a new or locking deal must pass, in a fixed order."""
    check_rails(manifest, c.rails)
    check_counterparty(manifest, c.counterparty)
    if open_deals is not None:
        check_open_deals(manifest, open_deals)
    check_spend(manifest, c, spent)


__all__ = ["DAY_MS", "Commitment", "Spend", "amount_of", "check_commitment", "check_counterparty",
           "check_open_deals", "check_rails", "check_some_rail", "check_spend", "commitment"]
