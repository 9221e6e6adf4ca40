"""What a lock on chain must be, derived from the tclk/1 terms alone.

Both sides compute the same expectation: the payer to deposit it, the payee to check it. The
deadline maps from ms to the chain's seconds with a fixed margin, so the escrow's claim window
sits strictly inside the coordination window (SPEC §7): the chain stops taking claims
`TIMELOCK_MARGIN_S` before `refundAfterMs`, and `claimByMs` must end the payee's safe window at
least as long again before that. The margin is a constant of this rail rather than a setting,
because both parties must arrive at the same timelock to agree on the lock.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from tclk_tui.protocol.locks import is_valid_statement
from tclk_tui.protocol.money import minimal_text, money_text
from tclk_tui.rails.base import LockTerms, SettlementError, is_number

from .escrow import KIND_CODES, NATIVE, address_of_key
from .token import ETHER, TokenAsset

__all__ = ["ASSET", "TIMELOCK_MARGIN_S", "Expectation", "asset_of", "expect", "format_ether",
           "format_units", "timelock_of"]

ASSET = ETHER.symbol
TIMELOCK_MARGIN_S = 60
_CONTRACT_RE = re.compile(r"0x[0-9a-f]{64}")
_UNITS_RE = re.compile(r"[1-9][0-9]{0,77}")


@dataclass(frozen=True, slots=True)
class Expectation:
    contract: bytes
    kind: int
    statement: bytes
    recipient: str
    amount: int  # minimal units of `asset` (wei for ether)
    timelock: int
    asset: TokenAsset = ETHER

    @property
    def token(self) -> str:
        """The escrow's token address for this lock (NATIVE for ether)."""
        return self.asset.address or NATIVE

    @property
    def amount_wei(self) -> int:
        """The ether a deposit sends with it (0 for a token lock)."""
        return self.amount if self.asset.native else 0


def timelock_of(refund_after_ms: int) -> int:
    """The escrow's timelock (unix seconds) for a contract's `refundAfterMs`."""
    return int(refund_after_ms) // 1000 - TIMELOCK_MARGIN_S


def margin_text() -> str:
    """One sentence for the offer form and the gates."""
    return (f"evm-htlc: the escrow's timelock is refundAfterMs - {TIMELOCK_MARGIN_S} s, and "
            f"claimByMs must be at least {TIMELOCK_MARGIN_S} s before that (amounts in minimal "
            f"units: wei of {ASSET}, a token's smallest unit)")


def format_ether(wei: int) -> str:
    """`0.25 ETH`: exact, every digit kept (see tclk_tui.protocol.money)."""
    return money_text(wei, ASSET, ETHER.decimals)


def format_units(amount: int, asset: TokenAsset) -> str:
    """`1.5 USDC (1500000 units of USDC, 6 decimals)`, `0.25 ETH (250000000000000000 wei)`."""
    return (f"{money_text(amount, asset.symbol, asset.decimals)} "
            f"({minimal_text(amount, asset.symbol, asset.decimals)})")


def asset_of(symbol: object, assets: Mapping[str, TokenAsset], chain_id: int | None = None
             ) -> TokenAsset:
    """The one token an offer's asset names on this chain, or the reason there is none."""
    if symbol == ASSET:
        return ETHER
    if isinstance(symbol, str) and symbol in assets:
        return assets[symbol]
    chain = f" on chain {chain_id}" if chain_id is not None else ""
    known = ", ".join([ASSET, *sorted(assets)])
    raise _refuse(f"asset {str(symbol)[:16]!r} has no token{chain} in this profile's evm.json "
                  f"(it trades {known})", "unknown-asset")


def _refuse(message: str, code: str) -> SettlementError:
    return SettlementError(f"tclk: evm-htlc {message}", code=code)


def expect(terms: LockTerms, payee_key: str | None,
           assets: Mapping[str, TokenAsset] | None = None,
           chain_id: int | None = None) -> Expectation:
    """The on-chain lock these terms call for; SettlementError naming the rule otherwise."""
    asset = asset_of(terms.asset, assets or {}, chain_id)
    if not isinstance(terms.amount, str) or not _UNITS_RE.fullmatch(terms.amount) \
            or int(terms.amount) >= 2**256:
        unit = "wei" if asset.native else f"{asset.symbol}'s minimal units"
        raise _refuse(f"amount must be a positive whole number of {unit}", "bad-amount")
    if terms.lock not in KIND_CODES:
        raise _refuse("lock kind must be hash or point", "bad-terms")
    if not isinstance(terms.statement, str) or not is_valid_statement(terms.lock,
                                                                        terms.statement):
        raise _refuse("statement does not fit its lock kind", "bad-terms")
    if not isinstance(terms.contract, str) or not _CONTRACT_RE.fullmatch(terms.contract):
        raise _refuse("contract id is malformed", "bad-terms")
    for name in ("claim_by_ms", "refund_after_ms"):
        value = getattr(terms, name)
        if not is_number(value) or value != int(value) or value <= 0:
            raise _refuse(f"{name} must be a positive whole number of ms", "bad-terms")
    if payee_key is None:
        raise _refuse("needs the payee's paymentKey (the accept or offer carries none)",
                      "no-payment-key")
    recipient = address_of_key(payee_key)
    if recipient is None:
        raise _refuse("payee paymentKey is not a secp256k1 point", "bad-payment-key")
    timelock = timelock_of(terms.refund_after_ms)
    if int(terms.claim_by_ms) > (timelock - TIMELOCK_MARGIN_S) * 1000:
        raise _refuse(f"window too narrow: claimByMs must be at least {TIMELOCK_MARGIN_S} s "
                      f"before the timelock (refundAfterMs - {TIMELOCK_MARGIN_S} s)",
                      "window-too-narrow")
    return Expectation(contract=bytes.fromhex(terms.contract[2:]), kind=KIND_CODES[terms.lock],
                       statement=bytes.fromhex(terms.statement.lower().removeprefix("0x")),
                       recipient=recipient, amount=int(terms.amount), timelock=timelock,
                       asset=asset)
