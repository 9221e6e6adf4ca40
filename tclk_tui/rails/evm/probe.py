"""A token lock's approve and deposit, simulated together before either is sent.

A token without an EIP-2612 permit needs an `approve` transaction before its deposit, and the
deposit cannot be estimated (simulated) until that allowance is on chain: a fee-on-transfer
token, or one that answers false, would be found only by the escrow refusing the deposit, after
the approve was mined and paid for. So the wallet first runs both in one `eth_call`, giving the
payer's own account the probe's code (`DepositProbe.vy`) for that call only, through the
`stateOverride` parameter geth, anvil and most nodes take: the token sees the payer approve, the
escrow sees the payer deposit, and nothing is signed. A node that ignores the override (a call
to an account without code answers nothing) or refuses it is found by the probe's `ping`: the
gate then says as a fact that the check could not be made, and the escrow's own refusal of the
deposit stays the last line.
"""

from __future__ import annotations

from eth_abi import encode
from eth_utils import keccak

from tclk_tui.rails.base import SettlementError

from .escrow import contract_artifact
from .rpc import NodeClient

__all__ = ["PROBED", "can_simulate", "simulate_token_lock"]

PROBED = "0x" + keccak(text="tclk-tui/v1/deposit-probe").hex()
_PING = "0x" + keccak(text="ping()")[:4].hex()
_APPROVE_AND_DEPOSIT = keccak(text="approve_and_deposit(address,address,uint256,bytes)")[:4]


async def _probe_call(node: NodeClient, account: str, data: str) -> object:
    runtime = "0x" + contract_artifact("DepositProbe").runtime.hex()
    return await node.call("eth_call", {"from": account, "to": account, "data": data},
                           "latest", {account: {"code": runtime}})


async def can_simulate(node: NodeClient, account: str) -> bool:
    """Whether this node runs a call with an account's code overridden (the probe answers)."""
    try:
        answer = await _probe_call(node, account, _PING)
    except SettlementError:
        return False
    return isinstance(answer, str) and answer.lower() == PROBED


async def simulate_token_lock(node: NodeClient, account: str, token: str, escrow: str,
                              amount: int, deposit: bytes) -> bool:
    """Run `account`'s approve of exactly `amount` and its `deposit` to the escrow in one call.

    True when both would go through; False when this node cannot simulate it (said, not
    refused); a SettlementError (`would-revert`, with the token's or the escrow's reason)
    when they would not."""
    if not await can_simulate(node, account):
        return False
    data = _APPROVE_AND_DEPOSIT + encode(["address", "address", "uint256", "bytes"],
                                         [token, escrow, amount, deposit])
    try:
        answer = await _probe_call(node, account, "0x" + data.hex())
    except SettlementError as exc:
        if exc.code != "node-refused":
            raise
        raise SettlementError(f"tclk: evm-htlc the approve and the deposit, simulated "
                              f"together before either is sent, would be refused: {exc}",
                              code="would-revert") from None
    return isinstance(answer, str) and answer.lower() == PROBED
