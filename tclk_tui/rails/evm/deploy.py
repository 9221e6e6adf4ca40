"""Deploying the shipped contracts from an account: the escrow, and the demo's test token.

For tests, the demo, the benchmark and operators setting up a chain; the wallet itself only
checks that the escrow it is configured with has the shipped code.
"""

from __future__ import annotations

from eth_abi import encode
from eth_utils import to_checksum_address

from .escrow import artifact, contract_artifact
from .rpc import hex_int
from .tx import Sender

__all__ = ["deploy_contract", "deploy_escrow", "deploy_test_token"]


async def deploy_contract(sender: Sender, code: bytes) -> str:
    """Deploy `code` (deployment bytecode with its constructor arguments) from `sender`."""
    gas = hex_int(await sender.node.call("eth_estimateGas", {
        "from": sender.address, "data": "0x" + code.hex()}), "gas estimate")
    fees = await sender.fees(kind="deployment")
    nonce = await sender.node.nonce(sender.address, "pending")
    signed = sender._account.sign_transaction({
        "type": 2, "chainId": sender.chain_id, "nonce": nonce, "value": 0,
        "gas": int(gas * 1.2), "data": code, **fees})
    tx_hash = await sender.node.call("eth_sendRawTransaction",
                                     "0x" + bytes(signed.raw_transaction).hex())
    await sender.wait(str(tx_hash).lower())
    found = await sender.node.call("eth_getTransactionReceipt", str(tx_hash).lower())
    if not isinstance(found, dict) or found.get("status") != "0x1":
        raise RuntimeError("the deployment reverted")
    return to_checksum_address(found["contractAddress"])


async def deploy_escrow(sender: Sender) -> str:
    """Deploy the shipped escrow from `sender`; returns its address."""
    return await deploy_contract(sender, artifact().bytecode)


async def deploy_test_token(sender: Sender, symbol: str, decimals: int, *,
                            permits: bool = True, name: str | None = None) -> str:
    """Deploy the shipped TestToken (worth nothing: anyone may mint it)."""
    code = contract_artifact("TestToken").bytecode + encode(
        ["string", "string", "uint8", "bool"],
        [name or f"Test {symbol}", symbol, decimals, permits])
    return await deploy_contract(sender, code)
