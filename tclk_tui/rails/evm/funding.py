"""How a lock is paid for from this wallet's account, and what that costs: one plan for both.

An ether lock sends its amount with the deposit. A token lock needs the escrow allowed to pull
the amount first: an allowance already there, an EIP-2612 permit signed into the deposit itself
(one transaction), or an `approve` of exactly the amount sent before it. The same plan gives
the lock gate its facts (balances, allowance, gas in ether, amount plus gas, the margin) and
each reason the account cannot cover it, so the gate refuses before a dialog what the send
would refuse after it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tclk_tui.protocol.money import money_text
from tclk_tui.rails.base import SettlementError

from .escrow import deposit_data, deposit_token_data, deposit_token_permit_data
from .expect import Expectation, format_ether, format_units
from .token import ETHER, TokenAsset, TokenState, approve_data, permit_digest, read_token
from .tx import Sender, gwei_text

__all__ = ["PERMIT_LIFETIME_S", "DepositPlan", "Funding", "explain_revert", "problem_text"]

PERMIT_LIFETIME_S = 1800
# Gas a token deposit takes at most when it cannot be estimated yet (no allowance given): the
# escrow's own storage writes and two token calls, with room to spare.
TOKEN_DEPOSIT_GAS = 260_000
ETHER_DEPOSIT_GAS = 200_000
APPROVE_GAS = 70_000

# The escrow's own refusals, as its asserts word them, and the rule each one is.
_REVERTS = (
    ("token has no code", "token-no-code"),
    ("token returned false", "token-returned-false"),
    ("fee-on-transfer or rebasing", "token-fee-on-transfer"),
    ("allowance too low", "allowance-too-small"),
    ("balance too low", "insufficient-token-balance"),
    ("timelock already passed", "refund-window-open"),
    ("lock id already used", "already-settled"),
)


def problem_text(exc: SettlementError) -> str:
    """A refusal as one of the gate's blockers: the reason, and the rule it names."""
    text = str(exc).removeprefix("tclk: ").removeprefix("evm-htlc ")
    return text if exc.code in text else f"{text} (rule: {exc.code})"


def explain_revert(exc: SettlementError, what: str) -> SettlementError:
    """A `would-revert` refusal with the escrow's (or the token's) reason as its rule."""
    if exc.code != "would-revert":
        return exc
    text = str(exc)
    for words, rule in _REVERTS:
        if words in text:
            return SettlementError(f"tclk: evm-htlc {what} refused ({rule}): {text}", code=rule)
    return exc


def _short(amount: int, asset: TokenAsset) -> str:
    return money_text(amount, asset.symbol, asset.decimals)


@dataclass(frozen=True, slots=True)
class DepositPlan:
    """The transactions a lock takes: an optional approve, then the deposit."""

    data: bytes  # the deposit's calldata
    value: int  # ether sent with it (0 for a token)
    gas: int  # the deposit's gas (estimated, or the ceiling when it cannot be yet)
    estimated: bool
    approve: bytes | None = None  # an approve's calldata, sent first
    approve_gas: int = 0
    how: str = ""  # one sentence for the gate
    token: TokenState | None = None


class Funding:
    """Plans one account's deposits into one escrow."""

    def __init__(self, sender: Sender, escrow: str) -> None:
        self.sender = sender
        self.escrow = escrow

    def _terms(self, want: Expectation) -> tuple[bytes, int, bytes, str, int]:
        return (want.contract, want.kind, want.statement, want.recipient, want.timelock)

    async def _estimate(self, data: bytes, value: int, what: str) -> int:
        try:
            return await self.sender.estimate(self.escrow, data, value)
        except SettlementError as exc:
            raise explain_revert(exc, what) from None

    async def plan(self, want: Expectation, now_s: int) -> DepositPlan:
        """How to pay for `want` now; SettlementError naming the rule when it cannot be."""
        if want.asset.native:
            balance = await self.sender.node.balance(self.sender.address)
            if balance - self.sender.in_flight_cost() <= want.amount:
                raise SettlementError(
                    f"tclk: evm-htlc insufficient funds: {self.sender.address} holds "
                    f"{format_units(balance, ETHER)}, the lock alone moves "
                    f"{format_units(want.amount, ETHER)}, before gas", code="insufficient-funds")
            data = deposit_data(*self._terms(want))
            gas = await self._estimate(data, want.amount, "the deposit")
            return DepositPlan(data=data, value=want.amount, gas=gas, estimated=True,
                               how="the amount goes with the deposit")
        token = want.asset
        state = await read_token(self.sender.node, token, self.sender.address, self.escrow)
        if state.balance < want.amount:
            raise SettlementError(
                f"tclk: evm-htlc not enough of the token: {self.sender.address} holds "
                f"{format_units(state.balance, token)}, the lock needs "
                f"{format_units(want.amount, token)}", code="insufficient-token-balance")
        plain = deposit_token_data(want.token, want.amount, *self._terms(want))
        if state.allowance >= want.amount:
            gas = await self._estimate(plain, 0, "the token deposit")
            return DepositPlan(data=plain, value=0, gas=gas, estimated=True, token=state,
                               how="the escrow's allowance covers the amount")
        if state.permit_nonce is not None and state.domain_separator is not None:
            deadline = now_s + PERMIT_LIFETIME_S
            digest = permit_digest(state.domain_separator, self.sender.address, self.escrow,
                                   want.amount, state.permit_nonce, deadline)
            signed = self.sender.sign_hash(digest)
            data = deposit_token_permit_data(
                want.token, want.amount, *self._terms(want), deadline, signed.v,
                signed.r.to_bytes(32, "big"), signed.s.to_bytes(32, "big"))
            try:
                gas = await self._estimate(data, 0, "the token deposit")
            except SettlementError as exc:
                if exc.code != "allowance-too-small":
                    raise
            else:  # the token's permit works: one transaction gives the allowance and locks
                return DepositPlan(data=data, value=0, gas=gas, estimated=True, token=state,
                                   how="an EIP-2612 permit for exactly the amount, signed "
                                       "into the deposit itself")
        approve = approve_data(self.escrow, want.amount)
        try:
            approve_gas = await self.sender.estimate(token.address or "", approve, 0)
        except SettlementError as exc:
            raise explain_revert(exc, "the approve") from None
        return DepositPlan(data=plain, value=0, gas=TOKEN_DEPOSIT_GAS, estimated=False,
                           approve=approve, approve_gas=approve_gas, token=state,
                           how=f"the allowance ({_short(state.allowance, token)}) is below the "
                               f"amount: an approve transaction for exactly "
                               f"{_short(want.amount, token)} goes first")

    async def quote(self, want: Expectation, now_s: int, balance: int
                    ) -> tuple[list[tuple[str, str]], list[str]]:
        """The lock gate's facts and problems for `want`, read now."""
        facts: list[tuple[str, str]] = [("account", self.sender.address),
                                        ("balance", format_units(balance, ETHER))]
        problems: list[str] = []
        cap = self.sender.cap
        try:
            fees = await self.sender.fees(kind="lock")
        except SettlementError as exc:
            problems.append(problem_text(exc))
            max_fee = cap.max_fee_wei
        else:
            max_fee = fees["maxFeePerGas"]
        facts.append(("fee cap", f"max_fee_gwei {gwei_text(cap.max_fee_wei)}, "
                      f"max_priority_fee_gwei {gwei_text(cap.max_priority_fee_wei)}"))
        plan: DepositPlan | None = None
        try:
            plan = await self.plan(want, now_s)
        except SettlementError as exc:
            problems.append(problem_text(exc))
            state: TokenState | None = None
            if not want.asset.native:
                try:
                    state = await read_token(self.sender.node, want.asset, self.sender.address,
                                             self.escrow)
                except SettlementError:
                    state = None
            gas = ETHER_DEPOSIT_GAS if want.asset.native else TOKEN_DEPOSIT_GAS + APPROVE_GAS
        if plan is not None:
            state = plan.token
            gas = plan.gas + plan.approve_gas
            facts.append(("paid by", plan.how))
        if state is not None:
            facts.append(("token balance", format_units(state.balance, want.asset)))
            facts.append(("allowance", format_units(state.allowance, want.asset)
                          + ("" if state.permit_nonce is None else " (the token takes permits)")))
        gas_wei = gas * max_fee
        estimated = plan is not None and plan.estimated
        facts.append(("estimated gas", f"{format_ether(gas_wei)} at most ({gas_wei} wei: "
                      f"{gas} gas{'' if estimated else ' (a ceiling: not estimable yet)'} at "
                      f"up to {gwei_text(max_fee)})"))
        needed = want.amount_wei + gas_wei
        if want.asset.native:
            facts.append(("amount plus gas", format_units(needed, ETHER)))
        in_flight = self.sender.in_flight_cost()
        if in_flight:
            facts.append(("promised to transactions in flight", format_units(in_flight, ETHER)))
        margin = balance - in_flight - needed
        if margin >= 0:
            facts.append(("margin", f"{format_units(margin, ETHER)} left after the lock and "
                          "its gas"))
        else:
            facts.append(("margin", f"short by {format_units(-margin, ETHER)}"))
            problems.append(f"the account holds {format_ether(balance)}, the lock needs up to "
                            f"{format_ether(needed)} "
                            + ("(amount plus gas)" if want.asset.native else "of gas")
                            + " (rule: insufficient-funds)")
        return facts, problems
