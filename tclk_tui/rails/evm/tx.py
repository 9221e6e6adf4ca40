"""Signing, journaling, sending and waiting for one transaction, crash-safe.

Order of work for every transaction: estimate gas and fees, refuse what the balance cannot
cover, sign, journal (hash, nonce, fields), call `on_step("evm-signed")`, send, call
`on_step("evm-sent")`, wait for the receipt, journal it. After a crash the journal names the
transaction; `resume` finds it on chain or sends the very same bytes again, never a new one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from tclk_tui.rails.base import SettlementError

from .account import Account
from .rpc import NodeClient, hex_int
from .txlog import TxLog, TxRow

__all__ = ["Receipt", "Sender"]
log = logging.getLogger(__name__)

GAS_HEADROOM = 1.25
RECEIPT_TIMEOUT_S = 60.0
POLL_S = 0.05


@dataclass(frozen=True, slots=True)
class Receipt:
    tx_hash: str
    block: int
    ok: bool
    gas_used: int
    fee_wei: int


def _no_step(name: str) -> None:
    return None


def _outcome(receipt: Receipt) -> str:
    return "ok" if receipt.ok else "reverted"


class Sender:
    """One account on one chain; every transaction goes through the journal."""

    def __init__(self, node: NodeClient, chain_id: int, private_key: bytes, txlog: TxLog, *,
                 on_step: Callable[[str], None] = _no_step,
                 receipt_timeout_s: float = RECEIPT_TIMEOUT_S) -> None:
        self.node = node
        self.chain_id = chain_id
        self._account = Account.from_key(private_key)
        self.address: str = self._account.address
        self.txlog = txlog
        self._on_step = on_step
        self._timeout_s = receipt_timeout_s
        self._serial = asyncio.Lock()

    def __repr__(self) -> str:
        return f"Sender({self.address}, chain {self.chain_id})"

    async def fees(self) -> dict:
        """EIP-1559 fee fields: twice the latest base fee plus the node's suggested tip."""
        head = await self.node.block("latest")
        base = hex_int(head.get("baseFeePerGas", "0x0"), "base fee")
        try:
            tip = hex_int(await self.node.call("eth_maxPriorityFeePerGas"), "priority fee")
        except SettlementError:
            tip = 1_000_000_000
        return {"maxFeePerGas": 2 * base + tip, "maxPriorityFeePerGas": tip}

    async def estimate(self, to: str, data: bytes, value: int) -> int:
        """Gas for the call with headroom; a call that would revert is refused here, unsent."""
        try:
            gas = hex_int(await self.node.call("eth_estimateGas", {
                "from": self.address, "to": to, "data": "0x" + data.hex(),
                "value": hex(value)}), "gas estimate")
        except SettlementError as exc:
            if exc.code == "node-refused":
                raise SettlementError(f"tclk: evm-htlc the escrow would refuse this "
                                      f"transaction: {exc}", code="would-revert") from None
            raise
        return int(gas * GAS_HEADROOM)

    def _sign(self, fields: dict, data: bytes) -> tuple[str, str]:
        signed = self._account.sign_transaction({**fields, "data": data})
        return "0x" + bytes(signed.hash).hex(), "0x" + bytes(signed.raw_transaction).hex()

    async def send(self, *, kind: str, lock_id: str, to: str, data: bytes, value: int,
                   keep_raw: bool, spendable_check: bool = True) -> Receipt:
        """Estimate, check the balance, sign, journal, send, wait: one transaction."""
        async with self._serial:
            balance = await self.node.balance(self.address)
            if spendable_check and balance <= value:
                log.warning("evm %s for lock %s refused before signing: %s holds %d wei, the "
                            "value alone is %d wei", kind, lock_id, self.address, balance, value)
                raise SettlementError(
                    f"tclk: evm-htlc insufficient funds: {self.address} holds {balance} wei, "
                    f"the {kind} alone moves {value} wei, before gas", code="insufficient-funds")
            gas = await self.estimate(to, data, value)
            fees = await self.fees()
            cost = value + gas * fees["maxFeePerGas"]
            if spendable_check and balance < cost:
                log.warning("evm %s for lock %s refused before signing: %s holds %d wei, it "
                            "needs up to %d wei with gas", kind, lock_id, self.address, balance,
                            cost)
                raise SettlementError(
                    f"tclk: evm-htlc insufficient funds: {self.address} holds {balance} wei, "
                    f"the {kind} needs up to {cost} wei (value {value} + gas {gas} at "
                    f"{fees['maxFeePerGas']} wei)", code="insufficient-funds")
            nonce = await self.node.nonce(self.address, "pending")
            fields = {"type": 2, "chainId": self.chain_id, "nonce": nonce, "to": to,
                      "value": value, "gas": gas, **fees}
            tx_hash, raw = self._sign(fields, data)
            row = self.txlog.record(chain_id=self.chain_id, kind=kind, lock_id=lock_id,
                                    sender=self.address, nonce=nonce, tx_hash=tx_hash,
                                    fields=fields, raw=raw if keep_raw else None)
            log.info("evm %s for lock %s: signed %s (chain %d, nonce %d, gas %d, max fee %d "
                     "wei) and journaled before sending", kind, lock_id, tx_hash, self.chain_id,
                     nonce, gas, fees["maxFeePerGas"])
            self._on_step(f"evm-{kind}-signed")
            return await self._broadcast(row, raw)

    async def resume(self, row: TxRow, data: bytes | None) -> Receipt | None:
        """Finish a journaled transaction: its receipt, or the same bytes sent again.

        None when it never reached the chain and cannot be rebuilt here (a claim without its
        secret); the caller then decides from the chain's own state.
        """
        receipt = await self.receipt(row.tx_hash)
        if receipt is not None:
            log.info("evm %s %s (journaled %s) found on chain in block %d: %s", row.kind,
                     row.tx_hash, row.state, receipt.block, _outcome(receipt))
            self.txlog.mark(row, "mined" if receipt.ok else "failed", receipt.block)
            return receipt
        raw = row.raw
        if raw is None:
            if data is None:
                log.info("evm %s %s (journaled %s) is not on chain and cannot be rebuilt "
                         "here: the chain's own state decides", row.kind, row.tx_hash,
                         row.state)
                return None
            tx_hash, raw = self._sign(row.fields, data)
            if tx_hash != row.tx_hash:
                raise SettlementError("tclk: evm-htlc the journaled transaction does not "
                                      "rebuild to the same hash; nothing sent",
                                      code="journal-mismatch")
        log.info("evm %s %s (journaled %s) is not on chain: sending the same transaction "
                 "again", row.kind, row.tx_hash, row.state)
        async with self._serial:
            return await self._broadcast(row, raw)

    async def _broadcast(self, row: TxRow, raw: str) -> Receipt:
        try:
            answered = await self.node.call("eth_sendRawTransaction", raw)
        except SettlementError as exc:
            # "already known" / "nonce too low": it may be ours, already in; the receipt says.
            known = exc.code == "node-refused" and (
                await self.receipt(row.tx_hash) is not None or await self._known(row.tx_hash))
            if not known:
                log.warning("evm %s %s: the node refused it (%s)", row.kind, row.tx_hash,
                            exc.code)
                raise
            log.info("evm %s %s: the node already has it", row.kind, row.tx_hash)
            answered = row.tx_hash
        if not isinstance(answered, str) or answered.lower() != row.tx_hash:
            raise SettlementError("tclk: evm node answered another transaction hash than the "
                                  "one signed", code="bad-node")
        self._on_step(f"evm-{row.kind}-sent")
        self.txlog.mark(row, "sent")
        log.info("evm %s %s sent; waiting for its receipt", row.kind, row.tx_hash)
        receipt = await self.wait(row.tx_hash)
        self.txlog.mark(row, "mined" if receipt.ok else "failed", receipt.block)
        log.info("evm %s %s mined in block %d: %s, gas used %d, fee %d wei", row.kind,
                 row.tx_hash, receipt.block, _outcome(receipt), receipt.gas_used,
                 receipt.fee_wei)
        return receipt

    async def _known(self, tx_hash: str) -> bool:
        try:
            return isinstance(await self.node.call("eth_getTransactionByHash", tx_hash), dict)
        except SettlementError:
            return False

    async def receipt(self, tx_hash: str) -> Receipt | None:
        found = await self.node.call("eth_getTransactionReceipt", tx_hash)
        if found is None:
            return None
        if not isinstance(found, dict) or str(found.get("transactionHash", "")).lower() \
                != tx_hash:
            raise SettlementError("tclk: evm node answered a receipt for another transaction",
                                  code="bad-receipt")
        gas_used = hex_int(found.get("gasUsed"), "receipt gas")
        price = hex_int(found.get("effectiveGasPrice"), "receipt gas price")
        return Receipt(tx_hash=tx_hash, block=hex_int(found.get("blockNumber"), "receipt block"),
                       ok=found.get("status") == "0x1", gas_used=gas_used,
                       fee_wei=gas_used * price)

    async def wait(self, tx_hash: str) -> Receipt:
        deadline = time.monotonic() + self._timeout_s
        while True:
            receipt = await self.receipt(tx_hash)
            if receipt is not None:
                return receipt
            if time.monotonic() >= deadline:
                log.warning("evm %s not mined within %.0f s: journaled, looked up again before "
                            "anything is resent", tx_hash, self._timeout_s)
                raise SettlementError(f"tclk: evm-htlc transaction {tx_hash} not mined within "
                                      f"{self._timeout_s:.0f} s (journaled; it is looked up "
                                      "again before anything is resent)", code="tx-pending")
            await asyncio.sleep(POLL_S)
