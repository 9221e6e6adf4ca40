"""EvmHtlcRail: tclk/1 settlement on an EVM chain through the HtlcEscrow contract.

THIS RAIL MOVES VALUE. The chain, read through the configured node, is the source of truth:
a lock counts only when the escrow's own storage holds it with exactly the terms the contract
calls for, at the escrow address this wallet expects (whose code must be the shipped escrow's),
on the configured chain, with the configured confirmations. A node's receipt is never taken
as proof of anything by itself; after every transaction the escrow's storage is read back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from eth_utils import to_checksum_address

from tclk_tui.protocol.locks import verify_secret
from tclk_tui.rails.base import Clock, LockTerms, SettlementError, wall_clock_ms

from .escrow import (
    CLAIMED_TOPIC,
    OnChainLock,
    artifact,
    claim_data,
    decode_lock,
    deposit_data,
    lock_id,
    locks_data,
    refund_data,
)
from .expect import TIMELOCK_MARGIN_S, Expectation, expect, format_ether, margin_text
from .ref import EvmRef, format_ref, parse_ref
from .rpc import NodeClient, hex_int
from .tx import Receipt, Sender
from .txlog import TxLog

__all__ = ["EvmConfig", "EvmHtlcRail", "LockReport", "deploy_escrow"]
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EvmConfig:
    """Per-profile settings: which node, which chain, which escrow, how many confirmations."""

    url: str
    chain_id: int
    escrow: str
    confirmations: int = 1

    def __post_init__(self) -> None:
        if self.confirmations < 1:
            raise ValueError("confirmations must be at least 1")
        object.__setattr__(self, "escrow", to_checksum_address(self.escrow))


@dataclass(frozen=True, slots=True)
class LockReport:
    """What the chain says about one announced lock, with the first rule it breaks (if any)."""

    ok: bool
    rule: str  # "ok" or the code of the broken rule
    detail: str
    facts: tuple[tuple[str, str], ...] = ()
    confirmations: int = 0
    lock: OnChainLock | None = field(default=None, repr=False)


def _refuse(message: str, code: str) -> SettlementError:
    return SettlementError(f"tclk: evm-htlc {message}", code=code)


async def deploy_escrow(sender: Sender) -> str:
    """Deploy the shipped escrow from `sender`; returns its address (tests, demo, operators)."""
    code = artifact().bytecode
    gas = hex_int(await sender.node.call("eth_estimateGas", {
        "from": sender.address, "data": "0x" + code.hex()}), "gas estimate")
    fees = await sender.fees()
    nonce = await sender.node.nonce(sender.address, "pending")
    signed = sender._account.sign_transaction({
        "type": 2, "chainId": sender.chain_id, "nonce": nonce, "value": 0,
        "gas": int(gas * 1.2), "data": code, **fees})
    tx_hash = await sender.node.call("eth_sendRawTransaction",
                                     "0x" + bytes(signed.raw_transaction).hex())
    await sender.wait(str(tx_hash).lower())
    found = await sender.node.call("eth_getTransactionReceipt", str(tx_hash).lower())
    return to_checksum_address(found["contractAddress"])


class EvmHtlcRail:
    """The evm-htlc rail for one account (derived from the master seed by the engine)."""

    id: str = "evm-htlc"
    moves_value: bool = True
    requires_payment_key: bool = True

    def __init__(self, config: EvmConfig, private_key: bytes, txlog: TxLog, *,
                 clock: Clock = wall_clock_ms,
                 on_step: Callable[[str], None] | None = None,
                 node: NodeClient | None = None) -> None:
        self.config = config
        self.node = node or NodeClient(config.url)
        self.sender = (Sender(self.node, config.chain_id, private_key, txlog, on_step=on_step)
                       if on_step else Sender(self.node, config.chain_id, private_key, txlog))
        self.txlog = txlog
        self._clock = clock
        self._escrow_checked = False
        self._chain_checked = False
        self._last_balance: int | None = None

    def __repr__(self) -> str:
        return (f"EvmHtlcRail(chain={self.config.chain_id}, escrow={self.config.escrow}, "
                f"account={self.address})")

    @property
    def address(self) -> str:
        return self.sender.address

    def describe(self) -> str:
        return (f"evm-htlc on chain {self.config.chain_id}: ether locked in the HtlcEscrow at "
                f"{self.config.escrow}, via {self.config.url}. MOVES REAL VALUE on a real chain. "
                f"A lock counts after {self.config.confirmations} confirmation(s); the escrow's "
                f"timelock is refundAfterMs - {TIMELOCK_MARGIN_S} s.")

    def window_note(self) -> str:
        """The margin this rail applies to the deadlines, for the offer form and the gates."""
        return margin_text()

    async def aclose(self) -> None:
        await self.node.aclose()
        self.txlog.close()

    # -- the chain, checked ------------------------------------------------------------------

    async def check_chain(self) -> None:
        """The node serves the configured chain and the escrow there is the shipped one."""
        if not self._chain_checked:
            served = await self.node.chain_id()
            if served != self.config.chain_id:
                raise _refuse(f"node serves chain {served}, this profile expects chain "
                              f"{self.config.chain_id}", "wrong-chain")
            self._chain_checked = True
        if not self._escrow_checked:
            code = await self.node.code(self.config.escrow)
            if code != artifact().runtime:
                raise _refuse(f"no HtlcEscrow at {self.config.escrow} on chain "
                              f"{self.config.chain_id} (its code is not the shipped escrow's)",
                              "not-the-escrow")
            self._escrow_checked = True

    def _own_ref(self, ref: str) -> EvmRef:
        parsed = parse_ref(ref)
        if parsed is None:
            raise _refuse("ref is not eip155:<chain id>:<escrow>:<lock id>", "malformed-ref")
        if parsed.chain_id != self.config.chain_id:
            raise _refuse(f"ref names chain {parsed.chain_id}, this wallet settles on chain "
                          f"{self.config.chain_id}", "wrong-chain")
        if parsed.escrow != self.config.escrow:
            raise _refuse(f"ref names escrow {parsed.escrow}, this wallet expects "
                          f"{self.config.escrow}", "other-escrow")
        return parsed

    async def read_lock(self, lock: bytes, block: str = "latest") -> OnChainLock:
        raw = await self.node.eth_call(self.config.escrow, "0x" + locks_data(lock).hex(), block)
        try:
            return decode_lock(raw)
        except ValueError as exc:
            raise _refuse(f"escrow answered an unreadable lock ({exc})", "bad-node") from None

    async def chain_time(self) -> tuple[int, int]:
        """(latest block number, its timestamp)."""
        head = await self.node.block("latest")
        return hex_int(head.get("number"), "block number"), hex_int(head.get("timestamp"),
                                                                    "block time")

    async def balance(self, address: str | None = None) -> int:
        return await self.node.balance(address or self.address)

    async def refresh_account(self) -> int:
        """Read this account's balance now and keep it for `account_text`."""
        self._last_balance = await self.balance()
        return self._last_balance

    def account_text(self) -> str:
        """The account and its last-read balance, for the faces (no I/O)."""
        held = "balance not read yet" if self._last_balance is None else (
            f"{self._last_balance} wei ({format_ether(self._last_balance)})")
        return f"account {self.address} on chain {self.config.chain_id}: {held}"

    # -- what the chain holds ----------------------------------------------------------------

    async def inspect_lock(self, terms: LockTerms, ref: str, *,
                           payee_key: str | None = None) -> LockReport:
        """Every rule a payee checks before revealing, the first broken one named."""
        def broken(rule: str, detail: str, facts=(), held=None, confs=0) -> LockReport:
            return LockReport(False, rule, detail, tuple(facts), confs, held)

        try:
            want = expect(terms, payee_key)
            parsed = self._own_ref(ref)
            await self.check_chain()
        except SettlementError as exc:
            return broken(exc.code, str(exc))
        held = await self.read_lock(parsed.lock_bytes)
        head, _now = await self.chain_time()
        facts = [("chain id", str(self.config.chain_id)), ("block", str(head)),
                 ("escrow", self.config.escrow)]
        if held.status is None:
            return broken("no-lock", "the escrow holds no lock under this ref (never made, or "
                          "removed by a reorg)", facts)
        confs = max(0, head - held.deposited_block + 1)
        facts += [("confirmations", f"{confs} of {self.config.confirmations}"),
                  ("amount locked", f"{held.amount} wei ({format_ether(held.amount)})"),
                  ("recipient", held.recipient), ("timelock", str(held.timelock)),
                  ("status on chain", held.status)]
        rebuilt = lock_id(held.contract, want.kind, held.statement, held.recipient,
                          held.timelock, held.depositor)
        checks = [
            (rebuilt.hex() == parsed.lock_id[2:], "lock-id",
             "the lock id does not match the lock's own terms"),
            (held.contract == want.contract, "wrong-contract",
             "the lock is for another contract"),
            (held.kind == terms.lock, "wrong-kind", f"the lock is a {held.kind} lock"),
            (held.statement == want.statement, "wrong-statement",
             "the lock's statement differs"),
            (held.recipient == want.recipient, "wrong-recipient",
             f"the lock pays {held.recipient}, the payee's paymentKey is {want.recipient}"),
            (held.amount == want.amount_wei, "wrong-amount",
             f"the lock holds {held.amount} wei, the contract says {want.amount_wei}"),
            (held.timelock == want.timelock, "wrong-timelock",
             f"the lock's timelock is {held.timelock}, the contract's is {want.timelock}"),
            (held.status == "locked", "not-locked", f"the lock is {held.status}"),
            (confs >= self.config.confirmations, "unconfirmed",
             f"{confs} of {self.config.confirmations} confirmations"),
        ]
        for ok, rule, detail in checks:
            if not ok:
                return broken(rule, detail, facts, held, confs)
        return LockReport(True, "ok", "lock verified on chain with matching terms",
                          tuple(facts), confs, held)

    async def verify_lock(self, terms: LockTerms, ref: str, *,
                          payee_key: str | None = None) -> bool:
        return (await self.inspect_lock(terms, ref, payee_key=payee_key)).ok

    async def lock_status(self, ref: str) -> str | None:
        parsed = self._own_ref(ref)
        return (await self.read_lock(parsed.lock_bytes)).status

    async def claimed_with(self, ref: str) -> str | None:
        """The secret of the completed claim, from the escrow's Claimed event."""
        parsed = self._own_ref(ref)
        held = await self.read_lock(parsed.lock_bytes)
        if held.status != "claimed":
            return None
        secret = await self.claimed_event_secret(parsed, held.deposited_block)
        return secret

    async def claimed_event_secret(self, parsed: EvmRef, from_block: int) -> str | None:
        logs = await self.node.call("eth_getLogs", {
            "address": self.config.escrow, "fromBlock": hex(from_block), "toBlock": "latest",
            "topics": [CLAIMED_TOPIC, parsed.lock_id]})
        if not isinstance(logs, list):
            raise _refuse("node answered logs that are not a list", "bad-node")
        for log in logs:
            data = log.get("data") if isinstance(log, dict) else None
            if (isinstance(data, str) and len(data) == 66
                    and str(log.get("address", "")).lower() == self.config.escrow.lower()
                    and not log.get("removed")):
                return "0x" + data[2:].lower()
        return None

    # -- the payer's lock ----------------------------------------------------------------------

    def lock_id_for(self, want: Expectation) -> bytes:
        return lock_id(want.contract, want.kind, want.statement, want.recipient, want.timelock,
                       self.address)

    async def lock(self, terms: LockTerms, *, payee_key: str | None = None) -> str:
        want = expect(terms, payee_key)
        await self.check_chain()
        lock = self.lock_id_for(want)
        ref = format_ref(self.config.chain_id, self.config.escrow, lock)
        lock_hex = "0x" + lock.hex()
        held = await self.read_lock(lock)
        if held.status == "locked":
            await self._close_journal("deposit", lock_hex)
            return ref  # locked before a crash: the chain says so, nothing is sent again
        if held.status is not None:
            raise _refuse(f"this lock is already {held.status}", "already-settled")
        journaled = self.txlog.find(self.config.chain_id, "deposit", lock_hex)
        if journaled is not None and journaled.state != "failed":
            receipt = await self.sender.resume(journaled, None)
            if receipt is not None:
                return await self._confirmed_lock(receipt, lock, ref, want)
        _block, now_s = await self.chain_time()
        if now_s >= want.timelock - TIMELOCK_MARGIN_S:
            raise _refuse("the chain's clock is already within the margin of the timelock: "
                          "the payee would have no safe claim window", "refund-window-open")
        if now_s * 1000 >= int(terms.claim_by_ms):
            raise _refuse("the chain's clock is past claimByMs", "refund-window-open")
        data = deposit_data(want.contract, want.kind, want.statement, want.recipient,
                            want.timelock)
        receipt = await self.sender.send(kind="deposit", lock_id=lock_hex,
                                         to=self.config.escrow, data=data,
                                         value=want.amount_wei, keep_raw=True)
        return await self._confirmed_lock(receipt, lock, ref, want)

    async def _confirmed_lock(self, receipt: Receipt, lock: bytes, ref: str,
                              want: Expectation) -> str:
        if not receipt.ok:
            raise _refuse(f"the deposit transaction {receipt.tx_hash} reverted", "reverted")
        held = await self.read_lock(lock)
        if held.status != "locked" or held.amount != want.amount_wei or \
                held.recipient != want.recipient or held.timelock != want.timelock:
            raise _refuse("the node reported the deposit mined but the escrow holds no such "
                          "lock: the receipt is not believed", "receipt-mismatch")
        return ref

    # -- the payee's claim, the payer's refund ------------------------------------------------

    async def claim(self, ref: str, secret: str) -> None:
        parsed = self._own_ref(ref)
        await self.check_chain()
        held = await self.read_lock(parsed.lock_bytes)
        raw_secret = _secret_bytes(secret)
        if held.status == "claimed":
            if held.secret == raw_secret:
                await self._close_journal("claim", parsed.lock_id)
                return  # our own claim, mined before a crash: never a second one
            raise _refuse("the lock is already claimed", "not-locked")
        if held.status != "locked":
            raise _refuse(f"claim on a {held.status or 'missing'} lock", "not-locked")
        if held.kind is None or not verify_secret(held.kind, "0x" + held.statement.hex(),
                                                  secret):
            raise _refuse("secret does not open the statement", "bad-secret")
        data = claim_data(parsed.lock_bytes, raw_secret)
        journaled = self.txlog.find(self.config.chain_id, "claim", parsed.lock_id)
        if journaled is not None and journaled.state != "failed":
            receipt = await self.sender.resume(journaled, data)
            if receipt is not None:
                return await self._settled(receipt, parsed, "claimed")
        _block, now_s = await self.chain_time()
        if now_s >= held.timelock:
            raise _refuse("claim at or after the escrow's timelock", "claim-too-late")
        receipt = await self.sender.send(kind="claim", lock_id=parsed.lock_id,
                                         to=self.config.escrow, data=data, value=0,
                                         keep_raw=False)
        await self._settled(receipt, parsed, "claimed")

    async def refund(self, ref: str) -> None:
        parsed = self._own_ref(ref)
        await self.check_chain()
        held = await self.read_lock(parsed.lock_bytes)
        if held.status == "refunded":
            await self._close_journal("refund", parsed.lock_id)
            return
        if held.status != "locked":
            raise _refuse(f"refund on a {held.status or 'missing'} lock", "not-locked")
        journaled = self.txlog.find(self.config.chain_id, "refund", parsed.lock_id)
        if journaled is not None and journaled.state != "failed":
            receipt = await self.sender.resume(journaled, None)
            if receipt is not None:
                return await self._settled(receipt, parsed, "refunded")
        _block, now_s = await self.chain_time()
        if now_s < held.timelock:
            raise _refuse(f"refund before the escrow's timelock ({held.timelock - now_s} s "
                          "to go on chain)", "refund-too-early")
        receipt = await self.sender.send(kind="refund", lock_id=parsed.lock_id,
                                         to=self.config.escrow, data=refund_data(
                                             parsed.lock_bytes), value=0, keep_raw=True)
        await self._settled(receipt, parsed, "refunded")

    async def _close_journal(self, kind: str, lock_hex: str) -> None:
        """The chain already shows the outcome: mark a journaled transaction with its receipt."""
        row = self.txlog.find(self.config.chain_id, kind, lock_hex)
        if row is not None and row.state in ("signed", "sent"):
            receipt = await self.sender.receipt(row.tx_hash)
            if receipt is not None:
                self.txlog.mark(row, "mined" if receipt.ok else "failed", receipt.block)

    async def reconcile(self) -> list[str]:
        """After a restart: every journaled transaction not known to be mined, looked up.

        A found receipt is journaled; a transaction the chain does not know stays journaled
        and is sent again (the same bytes) by the next lock, claim or refund of its lock,
        never replaced by a new one. Returns one line per transaction for the operator.
        """
        notes = []
        unfinished = self.txlog.unfinished(self.config.chain_id)
        log.info("evm reconcile: %d journaled transaction(s) not known to be mined on chain %d",
                 len(unfinished), self.config.chain_id)
        for row in unfinished:
            receipt = await self.sender.receipt(row.tx_hash)
            if receipt is None:
                log.info("evm reconcile: %s %s (journaled %s) is not on chain yet: sent again, "
                         "unchanged, when its deal next acts", row.kind, row.tx_hash, row.state)
                notes.append(f"evm-htlc: {row.kind} {row.tx_hash[:12]}… is not on chain yet; "
                             "it is sent again, unchanged, when its deal next acts")
                continue
            log.info("evm reconcile: %s %s (journaled %s) found in block %d (%s)", row.kind,
                     row.tx_hash, row.state, receipt.block, "ok" if receipt.ok else "reverted")
            self.txlog.mark(row, "mined" if receipt.ok else "failed", receipt.block)
            notes.append(f"evm-htlc: {row.kind} {row.tx_hash[:12]}… found in block "
                         f"{receipt.block} ({'ok' if receipt.ok else 'reverted'})")
        return notes

    async def _settled(self, receipt: Receipt, parsed: EvmRef, status: str) -> None:
        if not receipt.ok:
            raise _refuse(f"the transaction {receipt.tx_hash} reverted", "reverted")
        held = await self.read_lock(parsed.lock_bytes)
        if held.status != status:
            raise _refuse(f"the node reported the transaction mined but the escrow says "
                          f"{held.status}: the receipt is not believed", "receipt-mismatch")


def _secret_bytes(secret: object) -> bytes:
    if not isinstance(secret, str):
        raise _refuse("secret must be 0x-hex", "bad-secret")
    try:
        raw = bytes.fromhex(secret.removeprefix("0x"))
    except ValueError:
        raise _refuse("secret must be 0x-hex", "bad-secret") from None
    if len(raw) != 32:
        raise _refuse("secret must be 32 bytes", "bad-secret")
    return raw
