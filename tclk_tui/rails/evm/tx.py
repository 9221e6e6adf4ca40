"""One account's transaction queue: nonces, fees under the operator's cap, crash-safe sends.

Every transaction of an account goes through its `Sender`. The order of work: estimate gas and
fees (a fee the profile's cap cannot pay waits, nothing is signed), refuse what the balance
cannot cover (counting what this process has in flight), then, holding the account's send lock
(an asyncio lock in this process and an OS lock on a file beside the journal across processes),
assign the nonce, sign, journal (hash, nonce, fields), call `on_step("evm-<kind>-signed")`,
send, call `on_step("evm-<kind>-sent")`. The receipt is awaited outside the lock, so several
transactions are in flight at once with distinct nonces. A transaction left unmined past
`replace_after_s` is re-signed at the same nonce with higher fees, within the cap; the journal
keeps both hashes and whichever is mined is the one that counts.

A nonce comes from the chain (the account's pending count) and the journal (every transaction
this account journaled that may still be mined), never from memory alone: after a crash the
journal names each transaction, `resume` finds it on chain or sends the very same bytes again,
and a journaled transaction the chain has passed by (its nonce taken by another) is marked
dropped, so its deal sends a new one instead of waiting forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import math
import os
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from tclk_tui.protocol.money import units_text
from tclk_tui.rails.base import SettlementError

from .account import Account
from .rpc import NodeClient, hex_int
from .txlog import TxLog, TxRow

__all__ = ["DEFAULT_FEE_CAP", "FeeCap", "Receipt", "Sender", "gwei_text"]
log = logging.getLogger(__name__)

GAS_HEADROOM = 1.25
RECEIPT_TIMEOUT_S = 60.0
REPLACE_AFTER_S = 30.0
ACCOUNT_WAIT_S = 30.0
POLL_S = 0.05
BUMP = Decimal("1.125")  # nodes take a replacement only at 10% more; 12.5% leaves room
GWEI = 10**9
FALLBACK_TIP_WEI = GWEI


@dataclass(frozen=True, slots=True)
class FeeCap:
    """The most this profile pays per gas (EIP-1559), from `evm.json`."""

    max_fee_wei: int
    max_priority_fee_wei: int

    @classmethod
    def gwei(cls, max_fee: Decimal | int | str, max_priority_fee: Decimal | int | str) -> FeeCap:
        fee, tip = Decimal(str(max_fee)), Decimal(str(max_priority_fee))
        if not (fee.is_finite() and tip.is_finite()) or fee <= 0 or tip < 0:
            raise ValueError("max_fee_gwei must be above 0 and max_priority_fee_gwei at least 0")
        if tip > fee:
            raise ValueError("max_priority_fee_gwei cannot exceed max_fee_gwei")
        return cls(int(fee * GWEI), int(tip * GWEI))


DEFAULT_FEE_CAP = FeeCap.gwei(200, 3)
"""Without `max_fee_gwei` / `max_priority_fee_gwei` in `evm.json`."""


def gwei_text(wei: int) -> str:
    return f"{units_text(wei, 9)} gwei"


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


def _refuse(message: str, code: str) -> SettlementError:
    return SettlementError(f"tclk: evm-htlc {message}", code=code)


class Sender:
    """One account on one chain; every transaction goes through the journal."""

    def __init__(self, node: NodeClient, chain_id: int, private_key: bytes, txlog: TxLog, *,
                 on_step: Callable[[str], None] = _no_step,
                 receipt_timeout_s: float = RECEIPT_TIMEOUT_S,
                 cap: FeeCap = DEFAULT_FEE_CAP,
                 replace_after_s: float = REPLACE_AFTER_S,
                 lock_dir: Path | None = None) -> None:
        self.node = node
        self.chain_id = chain_id
        self._account = Account.from_key(private_key)
        self.address: str = self._account.address
        self.txlog = txlog
        self.cap = cap
        self.on_step = on_step
        self._timeout_s = receipt_timeout_s
        self.replace_after_s = replace_after_s
        self._serial = asyncio.Lock()
        self._in_flight: dict[int, int] = {}  # row id -> the most it may cost (value + gas)
        lock_dir = Path(lock_dir) if lock_dir is not None else txlog.path.parent
        self._lock_path = lock_dir / f"evm-{chain_id}-{self.address}.lock"

    def __repr__(self) -> str:
        return f"Sender({self.address}, chain {self.chain_id})"

    # -- fees -----------------------------------------------------------------------------------

    async def base_fee(self) -> int:
        """The next block's base fee (the pending block's; the latest's where there is none)."""
        for tag in ("pending", "latest"):
            try:
                head = await self.node.block(tag)
            except SettlementError:
                if tag == "latest":
                    raise
                continue
            if head.get("baseFeePerGas") is not None:
                return hex_int(head.get("baseFeePerGas"), "base fee")
        return 0

    async def fees(self, *, kind: str = "transaction", wait_note: str = "") -> dict:
        """EIP-1559 fee fields within the cap: twice the next base fee plus the node's tip.

        A base fee at or above the cap cannot be paid: the transaction waits (nothing is
        signed), and the refusal says by how much, and `wait_note` how long it can wait."""
        base = await self.base_fee()
        try:
            tip = hex_int(await self.node.call("eth_maxPriorityFeePerGas"), "priority fee")
        except SettlementError:
            tip = FALLBACK_TIP_WEI
        cap = self.cap
        if base >= cap.max_fee_wei:
            log.warning("evm %s waits: the base fee %d wei is at or above the cap %d wei",
                        kind, base, cap.max_fee_wei)
            raise _refuse(f"the network's base fee is {gwei_text(base)}, at or above this "
                          f"profile's max_fee_gwei of {gwei_text(cap.max_fee_wei)}: the {kind} "
                          f"waits, nothing is sent until the base fee falls below the cap"
                          + (f"; {wait_note}" if wait_note else ""), "fee-above-cap")
        tip = min(tip, cap.max_priority_fee_wei, cap.max_fee_wei - base)
        return {"maxFeePerGas": min(2 * base + tip, cap.max_fee_wei),
                "maxPriorityFeePerGas": tip}

    async def estimate(self, to: str, data: bytes, value: int) -> int:
        """Gas for the call with headroom; a call that would revert is refused here, unsent."""
        try:
            gas = hex_int(await self.node.call("eth_estimateGas", {
                "from": self.address, "to": to, "data": "0x" + data.hex(),
                "value": hex(value)}), "gas estimate")
        except SettlementError as exc:
            if exc.code == "node-refused":
                raise SettlementError(f"tclk: evm-htlc the chain would refuse this "
                                      f"transaction: {exc}", code="would-revert") from None
            raise
        return int(gas * GAS_HEADROOM)

    def in_flight_cost(self) -> int:
        """What this process's unmined transactions may still spend (value + gas at max fee)."""
        return sum(self._in_flight.values())

    # -- the account's send lock ----------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _send_slot(self) -> AsyncIterator[None]:
        """This account's nonce is assigned by one sender at a time, in this process and in
        any other process using the same lock directory (a second profile on the same seed)."""
        async with self._serial:
            self._lock_path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                deadline = time.monotonic() + ACCOUNT_WAIT_S
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except BlockingIOError:
                        if time.monotonic() >= deadline:
                            raise _refuse(
                                f"another process is sending from account {self.address} "
                                f"(one sender per account: waited {ACCOUNT_WAIT_S:.0f} s, "
                                "nothing sent)", "account-busy") from None
                        await asyncio.sleep(POLL_S)
                yield
            finally:
                os.close(fd)  # drops the flock

    async def _next_nonce(self) -> int:
        """The chain's pending count, past every journaled transaction that may still mine.

        A journaled transaction at or above that count which the node does not know never
        reached the chain: one we hold the bytes of is sent again first (same bytes, same
        nonce); a claim (whose bytes are never stored) gives its nonce up and is marked
        dropped, so its deal re-signs it when it next acts."""
        pending = await self.node.nonce(self.address, "pending")
        nonce = pending
        for row in self.txlog.live(self.chain_id, self.address):
            if row.nonce < pending:
                continue
            if row.id in self._in_flight or await self._known(row.tx_hash):
                nonce = max(nonce, row.nonce + 1)
            elif row.raw is not None and row.nonce == nonce:
                with contextlib.suppress(SettlementError):
                    await self.node.call("eth_sendRawTransaction", row.raw)
                if await self._known(row.tx_hash):
                    self.txlog.mark(row, "sent")
                    nonce = row.nonce + 1
                    continue
                self.txlog.mark(row, "dropped")
            else:
                self.txlog.mark(row, "dropped")
        return nonce

    # -- sending --------------------------------------------------------------------------------

    def sign_hash(self, digest: bytes) -> Any:
        """This account's signature (v, r, s) over a 32-byte digest the caller built (an
        EIP-2612 permit's EIP-712 digest)."""
        return self._account.unsafe_sign_hash(digest)

    def _sign(self, fields: dict, data: bytes) -> tuple[str, str]:
        signed = self._account.sign_transaction({**fields, "data": data})
        return "0x" + bytes(signed.hash).hex(), "0x" + bytes(signed.raw_transaction).hex()

    async def check_value(self, *, kind: str, lock_id: str, value: int) -> None:
        """Refuse, before anything is estimated or signed, a value the account cannot send."""
        balance = await self.node.balance(self.address)
        if balance - self.in_flight_cost() <= value:
            log.warning("evm %s for lock %s refused before signing: %s holds %d wei, the "
                        "value alone is %d wei", kind, lock_id, self.address, balance, value)
            raise SettlementError(
                f"tclk: evm-htlc insufficient funds: {self.address} holds {balance} wei"
                + (f" ({self.in_flight_cost()} wei promised to transactions in flight)"
                   if self._in_flight else "")
                + f", the {kind} alone moves {value} wei, before gas", code="insufficient-funds")

    async def send(self, *, kind: str, lock_id: str, to: str, data: bytes, value: int,
                   keep_raw: bool, spendable_check: bool = True, wait_note: str = "",
                   gas: int | None = None) -> Receipt:
        """Estimate, check fees and balance, sign, journal, send, wait: one transaction."""
        fees = await self.fees(kind=kind, wait_note=wait_note)
        balance = await self.node.balance(self.address)
        spendable = balance - self.in_flight_cost()
        if spendable_check and spendable <= value:
            log.warning("evm %s for lock %s refused before signing: %s holds %d wei, the "
                        "value alone is %d wei", kind, lock_id, self.address, balance, value)
            raise SettlementError(
                f"tclk: evm-htlc insufficient funds: {self.address} holds {balance} wei"
                + (f" ({self.in_flight_cost()} wei promised to transactions in flight)"
                   if self._in_flight else "")
                + f", the {kind} alone moves {value} wei, before gas", code="insufficient-funds")
        gas = gas if gas is not None else await self.estimate(to, data, value)
        cost = value + gas * fees["maxFeePerGas"]
        if spendable_check and spendable < cost:
            log.warning("evm %s for lock %s refused before signing: %s holds %d wei, it "
                        "needs up to %d wei with gas", kind, lock_id, self.address, balance,
                        cost)
            raise SettlementError(
                f"tclk: evm-htlc insufficient funds: {self.address} holds {balance} wei, "
                f"the {kind} needs up to {cost} wei (value {value} + gas {gas} at "
                f"{fees['maxFeePerGas']} wei)", code="insufficient-funds")
        async with self._send_slot():
            nonce = await self._next_nonce()
            fields = {"type": 2, "chainId": self.chain_id, "nonce": nonce, "to": to,
                      "value": value, "gas": gas, **fees}
            tx_hash, raw = self._sign(fields, data)
            row = self.txlog.record(chain_id=self.chain_id, kind=kind, lock_id=lock_id,
                                    sender=self.address, nonce=nonce, tx_hash=tx_hash,
                                    fields=fields, raw=raw if keep_raw else None)
            log.info("evm %s for lock %s: signed %s (chain %d, nonce %d, gas %d, max fee %d "
                     "wei) and journaled before sending", kind, lock_id, tx_hash, self.chain_id,
                     nonce, gas, fees["maxFeePerGas"])
            self.on_step(f"evm-{kind}-signed")
            await self._broadcast(row, raw)
            self._in_flight[row.id] = cost
        try:
            return await self._until_mined(row, data)
        finally:
            self._in_flight.pop(row.id, None)

    async def resume(self, row: TxRow, data: bytes | None) -> Receipt | None:
        """Finish a journaled transaction: its receipt, or the same bytes sent again.

        None when it never reached the chain and cannot be rebuilt here (a claim without its
        secret), or when the chain has passed its nonce by (marked dropped): the caller then
        decides from the chain's own state, and may send a new one.
        """
        group = self.txlog.same_nonce(row)
        for member in group:
            receipt = await self.receipt(member.tx_hash)
            if receipt is not None:
                log.info("evm %s %s (journaled %s) found on chain in block %d: %s",
                         member.kind, member.tx_hash, member.state, receipt.block,
                         _outcome(receipt))
                self._settle(group, member, receipt)
                return receipt
        if await self.node.nonce(self.address, "latest") > row.nonce:
            log.info("evm %s %s (journaled %s) never mined and its nonce %d is taken: dropped, "
                     "sent anew", row.kind, row.tx_hash, row.state, row.nonce)
            for member in group:  # the nonce was taken by a transaction that is not this one
                self.txlog.mark(member, "dropped")
            return None
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
        async with self._send_slot():
            await self._broadcast(row, raw)
        return await self._until_mined(row, data)

    async def _broadcast(self, row: TxRow, raw: str) -> None:
        try:
            answered = await self.node.call("eth_sendRawTransaction", raw)
        except SettlementError as exc:
            # "already known" / "nonce too low": it may be ours, already in; the receipt says.
            known = exc.code == "node-refused" and (
                await self.receipt(row.tx_hash) is not None or await self._known(row.tx_hash))
            if not known:
                log.warning("evm %s %s: the node refused it (%s)", row.kind, row.tx_hash,
                            exc.code)
                if exc.code == "node-refused":
                    self.txlog.mark(row, "dropped")  # never taken: its nonce is free again
                raise
            log.info("evm %s %s: the node already has it", row.kind, row.tx_hash)
            answered = row.tx_hash
        if not isinstance(answered, str) or answered.lower() != row.tx_hash:
            raise SettlementError("tclk: evm node answered another transaction hash than the "
                                  "one signed", code="bad-node")
        self.on_step(f"evm-{row.kind}-sent")
        self.txlog.mark(row, "sent")
        log.info("evm %s %s sent; waiting for its receipt", row.kind, row.tx_hash)

    def _settle(self, group: list[TxRow], mined: TxRow, receipt: Receipt) -> None:
        """One of a nonce's transactions is mined: it counts, the others are replaced."""
        for member in group:
            if member.id != mined.id:
                self.txlog.mark(member, "replaced")
        self.txlog.mark(mined, "mined" if receipt.ok else "failed", receipt.block)
        log.info("evm %s %s mined in block %d: %s, gas used %d, fee %d wei", mined.kind,
                 mined.tx_hash, receipt.block, _outcome(receipt), receipt.gas_used,
                 receipt.fee_wei)

    async def _until_mined(self, row: TxRow, data: bytes | None) -> Receipt:
        """Wait for this nonce's receipt, replacing a stuck transaction within the cap."""
        deadline = time.monotonic() + self._timeout_s
        bump_at = time.monotonic() + self.replace_after_s
        while True:
            group = self.txlog.same_nonce(row)
            for member in group:
                receipt = await self.receipt(member.tx_hash)
                if receipt is not None:
                    self._settle(group, member, receipt)
                    return receipt
            now = time.monotonic()
            if now >= bump_at and data is not None:
                bump_at = now + self.replace_after_s
                await self._replace(group[-1], data)
            if now >= deadline:
                log.warning("evm %s not mined within %.0f s: journaled, looked up again before "
                            "anything is resent", group[-1].tx_hash, self._timeout_s)
                raise SettlementError(f"tclk: evm-htlc transaction {group[-1].tx_hash} not "
                                      f"mined within {self._timeout_s:.0f} s (journaled; it is "
                                      "looked up again before anything is resent)",
                                      code="tx-pending")
            await asyncio.sleep(POLL_S)

    async def _replace(self, stuck: TxRow, data: bytes) -> TxRow | None:
        """The same transaction at the same nonce with fees raised by an eighth, within the
        cap; None (and the old one keeps waiting) when the cap leaves no room for a raise."""
        old_fee, old_tip = stuck.fields["maxFeePerGas"], stuck.fields["maxPriorityFeePerGas"]
        try:
            fresh = await self.fees(kind=stuck.kind)
        except SettlementError:
            return None  # the base fee is above the cap now: the one in the pool waits
        fee = max(math.ceil(old_fee * BUMP), fresh["maxFeePerGas"])
        tip = max(math.ceil(old_tip * BUMP), fresh["maxPriorityFeePerGas"])
        fee = min(fee, self.cap.max_fee_wei)
        tip = min(tip, self.cap.max_priority_fee_wei, fee)
        if fee < math.ceil(old_fee * BUMP) or tip < math.ceil(old_tip * BUMP):
            return None  # at the cap: no replacement a node would take
        fields = {**stuck.fields, "maxFeePerGas": fee, "maxPriorityFeePerGas": tip}
        tx_hash, raw = self._sign(fields, data)
        row = self.txlog.record(chain_id=self.chain_id, kind=stuck.kind, lock_id=stuck.lock_id,
                                sender=self.address, nonce=stuck.nonce, tx_hash=tx_hash,
                                fields=fields, raw=raw if stuck.raw is not None else None,
                                replaces=stuck.id)
        try:
            await self._broadcast(row, raw)
        except SettlementError:
            return None  # the node refused the replacement: the first one still stands
        log.info("evm %s %s replaced by %s at nonce %d: max fee %d -> %d wei, tip %d -> %d wei",
                 stuck.kind, stuck.tx_hash, tx_hash, stuck.nonce, old_fee, fee, old_tip, tip)
        return row

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
        """A receipt for one hash (deployments, outside the journal)."""
        deadline = time.monotonic() + self._timeout_s
        while True:
            receipt = await self.receipt(tx_hash)
            if receipt is not None:
                return receipt
            if time.monotonic() >= deadline:
                raise SettlementError(f"tclk: evm-htlc transaction {tx_hash} not mined within "
                                      f"{self._timeout_s:.0f} s", code="tx-pending")
            await asyncio.sleep(POLL_S)
