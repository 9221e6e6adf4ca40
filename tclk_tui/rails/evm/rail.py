"""EvmHtlcRail: tclk/1 settlement on an EVM chain through the HtlcEscrow contract.

THIS RAIL MOVES VALUE. The chain, read through the configured node, is the source of truth:
a lock counts only when the escrow's own storage holds it with exactly the terms the contract
calls for (its token and amount included), at the escrow address this wallet expects (whose
code must be the shipped escrow's), on the configured chain, with the configured confirmations.
A node's receipt is never taken as proof of anything by itself; after every transaction the
escrow's storage is read back.

Time on chain is the next block's: a chain that mines only on demand still stamps its next
block with the present, so a refund is judged against that, never against a last block that
may be hours old.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from eth_utils import to_checksum_address

from tclk_tui.protocol.locks import verify_secret
from tclk_tui.rails.base import (
    Clock,
    LockQuote,
    LockTerms,
    RailFeatures,
    SettlementError,
    wall_clock_ms,
)
from tclk_tui.rails.base import LockReport as BaseLockReport

from .deploy import deploy_escrow
from .escrow import (
    CLAIMED_TOPIC,
    OnChainLock,
    artifact,
    claim_data,
    decode_lock,
    lock_id,
    locks_data,
    refund_data,
)
from .expect import (
    TIMELOCK_MARGIN_S,
    Expectation,
    asset_of,
    expect,
    format_units,
    margin_text,
)
from .funding import Funding, explain_revert, problem_text
from .ref import EvmRef, format_ref, parse_ref
from .rpc import NodeClient, hex_int
from .token import ETHER, TokenAsset, check_token, read_token
from .tx import REPLACE_AFTER_S, FeeCap, Receipt, Sender
from .txlog import TxLog

__all__ = ["EvmConfig", "EvmHtlcRail", "LockReport", "deploy_escrow"]
log = logging.getLogger(__name__)

_SETTLED_STATES = ("failed", "dropped")  # a journaled row in these never counts: send anew


@dataclass(frozen=True, slots=True)
class EvmConfig:
    """Per-profile settings: which node, which chain, which escrow, how many confirmations,
    which tokens it trades, and the most it pays per gas."""

    url: str
    chain_id: int
    escrow: str
    confirmations: int = 1
    assets: Mapping[str, TokenAsset] = field(default_factory=dict)
    max_fee_gwei: Decimal = Decimal(200)
    max_priority_fee_gwei: Decimal = Decimal(3)

    def __post_init__(self) -> None:
        if self.confirmations < 1:
            raise ValueError("confirmations must be at least 1")
        object.__setattr__(self, "escrow", to_checksum_address(self.escrow))
        object.__setattr__(self, "max_fee_gwei", Decimal(str(self.max_fee_gwei)))
        object.__setattr__(self, "max_priority_fee_gwei",
                           Decimal(str(self.max_priority_fee_gwei)))
        self.fee_cap  # noqa: B018 (checks the two caps)

    @property
    def fee_cap(self) -> FeeCap:
        return FeeCap.gwei(self.max_fee_gwei, self.max_priority_fee_gwei)


@dataclass(frozen=True, slots=True)
class LockReport(BaseLockReport):
    """What the chain says about one announced lock, with the first rule it breaks (if any)."""

    lock: OnChainLock | None = field(default=None, repr=False)


def _refuse(message: str, code: str) -> SettlementError:
    return SettlementError(f"tclk: evm-htlc {message}", code=code)


class EvmHtlcRail(RailFeatures):
    """The evm-htlc rail for one account (derived from the master seed by the engine)."""

    id: str = "evm-htlc"
    moves_value: bool = True
    requires_payment_key: bool = True

    def __init__(self, config: EvmConfig, private_key: bytes, txlog: TxLog, *,
                 clock: Clock = wall_clock_ms,
                 on_step: Callable[[str], None] | None = None,
                 node: NodeClient | None = None,
                 lock_dir: Path | None = None,
                 replace_after_s: float = REPLACE_AFTER_S) -> None:
        self.config = config
        self.node = node or NodeClient(config.url)
        self.sender = Sender(self.node, config.chain_id, private_key, txlog,
                             cap=config.fee_cap, lock_dir=lock_dir,
                             replace_after_s=replace_after_s)
        if on_step is not None:
            self.sender.on_step = on_step
        self.txlog = txlog
        self.funding = Funding(self.sender, config.escrow)
        self._clock = clock
        self._escrow_checked = False
        self._chain_checked = False
        self._tokens_checked: set[str] = set()
        self._token_serial: dict[str, asyncio.Lock] = {}
        self._last_balance: int | None = None
        self._last_tokens: dict[str, int] = {}

    def __repr__(self) -> str:
        return (f"EvmHtlcRail(chain={self.config.chain_id}, escrow={self.config.escrow}, "
                f"account={self.address})")

    @property
    def address(self) -> str:
        return self.sender.address

    def describe(self) -> str:
        tokens = ", ".join(f"{a.symbol} ({a.address}, {a.decimals} decimals)"
                           for a in self.config.assets.values())
        return (f"evm-htlc on chain {self.config.chain_id}: ether"
                + (f" and tokens {tokens}" if tokens else "")
                + f" locked in the HtlcEscrow at {self.config.escrow}, via {self.config.url}. "
                f"MOVES REAL VALUE on a real chain. A lock counts after "
                f"{self.config.confirmations} confirmation(s); the escrow's timelock is "
                f"refundAfterMs - {TIMELOCK_MARGIN_S} s. Fees at most "
                f"{self.config.max_fee_gwei} gwei per gas (tip "
                f"{self.config.max_priority_fee_gwei} gwei).")

    def window_note(self) -> str:
        """The margin this rail applies to the deadlines, for the offer form and the gates."""
        return margin_text()

    async def aclose(self) -> None:
        await self.node.aclose()
        self.txlog.close()

    # -- assets ---------------------------------------------------------------------------------

    def asset(self, symbol: object) -> TokenAsset:
        """The one token an offer's asset names on this chain (SettlementError otherwise)."""
        return asset_of(symbol, self.config.assets, self.config.chain_id)

    def asset_decimals(self, asset: str) -> int | None:
        try:
            return self.asset(asset).decimals
        except SettlementError:
            return None

    def asset_refusal(self, asset: str) -> str | None:
        try:
            self.asset(asset)
        except SettlementError as exc:
            return str(exc).removeprefix("tclk: ")
        return None

    async def check_asset(self, asset: TokenAsset) -> None:
        """A configured token has code here and the configured decimals (checked once)."""
        if asset.native or asset.symbol in self._tokens_checked:
            return
        await check_token(self.node, asset)
        self._tokens_checked.add(asset.symbol)

    def _expect(self, terms: LockTerms, payee_key: str | None) -> Expectation:
        return expect(terms, payee_key, self.config.assets, self.config.chain_id)

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

    async def next_block_time(self) -> int:
        """The earliest timestamp the next block can carry: the pending block's, and never
        less than one second past the latest block's (a node without a pending block)."""
        _number, latest = await self.chain_time()
        try:
            pending = hex_int((await self.node.block("pending")).get("timestamp"),
                              "pending block time")
        except SettlementError:
            pending = 0
        return max(latest + 1, pending)

    def _clock_s(self) -> int:
        return int(self._clock()) // 1000

    async def balance(self, address: str | None = None) -> int:
        return await self.node.balance(address or self.address)

    async def refresh_account(self) -> None:
        """Read this account's balances now (ether and each token) for `account_text`; a
        configured token that is not what `evm.json` says (no code, other decimals) is
        refused here, so the operator hears of it before any deal needs it."""
        self._last_balance = await self.balance()
        problem: SettlementError | None = None
        for symbol, token in self.config.assets.items():
            try:
                await self.check_asset(token)
                state = await read_token(self.node, token, self.address, self.config.escrow)
            except SettlementError as exc:
                self._last_tokens.pop(symbol, None)
                problem = problem or exc
            else:
                self._last_tokens[symbol] = state.balance
        if problem is not None:
            raise problem

    def account_text(self) -> str:
        """The account and its last-read balances, for the faces (no I/O)."""
        if self._last_balance is None:
            held = "balance not read yet"
        else:
            held = format_units(self._last_balance, ETHER)
            for symbol, amount in sorted(self._last_tokens.items()):
                held += f"; {format_units(amount, self.config.assets[symbol])}"
        return f"account {self.address} on chain {self.config.chain_id}: {held}"

    async def holdings(self) -> dict[str, int]:
        """Every configured asset's balance of this account now, in minimal units."""
        held = {ETHER.symbol: await self.balance()}
        for symbol, token in self.config.assets.items():
            held[symbol] = (await read_token(self.node, token, self.address,
                                             self.config.escrow)).balance
        return held

    # -- what the chain holds ----------------------------------------------------------------

    async def inspect_lock(self, terms: LockTerms, ref: str, *,
                           payee_key: str | None = None) -> LockReport:
        """Every rule a payee checks before revealing, the first broken one named."""
        def broken(rule: str, detail: str, facts=(), held=None, confs=0) -> LockReport:
            return LockReport(False, rule, detail, tuple(facts), confs, held)

        try:
            want = self._expect(terms, payee_key)
            parsed = self._own_ref(ref)
            await self.check_chain()
            await self.check_asset(want.asset)
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
        if not want.asset.native:
            facts.append(("token", f"{want.asset.symbol} at {held.token}"))
        facts += [("confirmations", f"{confs} of {self.config.confirmations}"),
                  ("amount locked", format_units(held.amount, want.asset)),
                  ("recipient", held.recipient), ("timelock", str(held.timelock)),
                  ("status on chain", held.status)]
        rebuilt = lock_id(held.contract, want.kind, held.statement, held.recipient,
                          held.timelock, held.depositor, held.token)
        checks = [
            (rebuilt.hex() == parsed.lock_id[2:], "lock-id",
             "the lock id does not match the lock's own terms"),
            (held.contract == want.contract, "wrong-contract",
             "the lock is for another contract"),
            (held.token == to_checksum_address(want.token), "wrong-token",
             f"the lock holds token {held.token}, the contract's {want.asset.symbol} is "
             f"{want.token} here"),
            (held.kind == terms.lock, "wrong-kind", f"the lock is a {held.kind} lock"),
            (held.statement == want.statement, "wrong-statement",
             "the lock's statement differs"),
            (held.recipient == want.recipient, "wrong-recipient",
             f"the lock pays {held.recipient}, the payee's paymentKey is {want.recipient}"),
            (held.amount == want.amount, "wrong-amount",
             f"the lock holds {format_units(held.amount, want.asset)}, the contract says "
             f"{format_units(want.amount, want.asset)}"),
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
                       self.address, want.token)

    async def _lock_time(self, want: Expectation, terms: LockTerms) -> int:
        """The chain's time for a lock now (the next block's, or this computer's clock if that
        is later), refused when the payee would have no safe claim window left."""
        now_s = max(await self.next_block_time(), self._clock_s())
        if now_s >= want.timelock - TIMELOCK_MARGIN_S:
            raise _refuse("the chain's clock is already within the margin of the timelock: "
                          "the payee would have no safe claim window", "refund-window-open")
        if now_s * 1000 >= int(terms.claim_by_ms):
            raise _refuse("the chain's clock is past claimByMs", "refund-window-open")
        return now_s

    async def lock_quote(self, terms: LockTerms, *,
                         payee_key: str | None = None) -> LockQuote:
        """What this lock would take from the account, for the lock gate (nothing sent)."""
        try:
            want = self._expect(terms, payee_key)
            await self.check_chain()
            await self.check_asset(want.asset)
            now_s = max(await self.next_block_time(), self._clock_s())
            balance = await self.balance()
        except SettlementError as exc:
            return LockQuote(facts=(), problems=(problem_text(exc),),
                             read_ms=int(self._clock()))
        self._last_balance = balance
        held = await self.read_lock(self.lock_id_for(want))
        if held.status == "locked":  # sent before a restart: the lock costs nothing more
            return LockQuote(facts=(("account", self.address), ("balance",
                                    format_units(balance, ETHER)),
                                    ("on chain", "already locked under these terms (sent "
                                     "before a restart): nothing more is sent")),
                             read_ms=int(self._clock()))
        if held.status is not None:
            return LockQuote(facts=(), problems=(
                f"this lock is already {held.status} on chain (rule: already-settled)",),
                read_ms=int(self._clock()))
        facts, problems = await self.funding.quote(want, now_s, balance)
        return LockQuote(facts=tuple(facts), problems=tuple(problems),
                         read_ms=int(self._clock()))

    async def lock(self, terms: LockTerms, *, payee_key: str | None = None) -> str:
        want = self._expect(terms, payee_key)
        await self.check_chain()
        await self.check_asset(want.asset)
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
        if journaled is not None and journaled.state not in _SETTLED_STATES:
            receipt = await self.sender.resume(journaled, None)
            if receipt is not None:
                return await self._confirmed_lock(receipt, lock, ref, want)
        if want.asset.native:
            return await self._deposit(want, terms, lock, ref)
        serial = self._token_serial.setdefault(want.token, asyncio.Lock())
        async with serial:  # one allowance (or permit nonce) per token at a time
            return await self._deposit(want, terms, lock, ref)

    async def _deposit(self, want: Expectation, terms: LockTerms, lock: bytes,
                       ref: str) -> str:
        lock_hex = "0x" + lock.hex()
        now_s = await self._lock_time(want, terms)
        if want.asset.native:
            await self.sender.check_value(kind="deposit", lock_id=lock_hex, value=want.amount)
        plan = await self.funding.plan(want, now_s)
        note = (f"the lock can wait about {max(0, want.timelock - TIMELOCK_MARGIN_S - now_s)} s "
                "more before the payee's claim window is gone")
        if plan.approve is not None:
            await self._approve(want, lock_hex, plan.approve, note)
            plan = await self.funding.plan(want, await self._lock_time(want, terms))
            if plan.approve is not None:
                left = plan.token.allowance if plan.token else 0
                raise _refuse(f"the token's allowance is still below the amount after the "
                              f"approve ({format_units(left, want.asset)})",
                              "allowance-too-small")
        try:
            receipt = await self.sender.send(kind="deposit", lock_id=lock_hex,
                                             to=self.config.escrow, data=plan.data,
                                             value=plan.value, keep_raw=True, wait_note=note,
                                             gas=plan.gas)
        except SettlementError as exc:
            raise explain_revert(exc, "the deposit") from None
        return await self._confirmed_lock(receipt, lock, ref, want)

    async def _approve(self, want: Expectation, lock_hex: str, data: bytes, note: str) -> None:
        token = want.asset.address or ""
        journaled = self.txlog.find(self.config.chain_id, "approve", lock_hex)
        receipt = None
        if journaled is not None and journaled.state not in _SETTLED_STATES:
            receipt = await self.sender.resume(journaled, None)
        if receipt is None:
            receipt = await self.sender.send(kind="approve", lock_id=lock_hex, to=token,
                                             data=data, value=0, keep_raw=True, wait_note=note)
        if not receipt.ok:
            raise _refuse(f"the approve transaction {receipt.tx_hash} reverted", "reverted")

    async def _confirmed_lock(self, receipt: Receipt, lock: bytes, ref: str,
                              want: Expectation) -> str:
        if not receipt.ok:
            raise _refuse(f"the deposit transaction {receipt.tx_hash} reverted", "reverted")
        held = await self.read_lock(lock)
        if held.status != "locked" or held.amount != want.amount or \
                held.recipient != want.recipient or held.timelock != want.timelock or \
                held.token != to_checksum_address(want.token):
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
        if journaled is not None and journaled.state not in _SETTLED_STATES:
            receipt = await self.sender.resume(journaled, data)
            if receipt is not None:
                return await self._settled(receipt, parsed, "claimed")
        now_s = max(await self.next_block_time(), self._clock_s())
        if now_s >= held.timelock:
            raise _refuse("claim at or after the escrow's timelock", "claim-too-late")
        note = (f"the claim can wait {held.timelock - now_s} s more: the escrow takes it only "
                f"before its timelock ({held.timelock} unix s)")
        receipt = await self.sender.send(kind="claim", lock_id=parsed.lock_id,
                                         to=self.config.escrow, data=data, value=0,
                                         keep_raw=False, wait_note=note)
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
        data = refund_data(parsed.lock_bytes)
        journaled = self.txlog.find(self.config.chain_id, "refund", parsed.lock_id)
        if journaled is not None and journaled.state not in _SETTLED_STATES:
            receipt = await self.sender.resume(journaled, data)
            if receipt is not None:
                return await self._settled(receipt, parsed, "refunded")
        now_s = await self.next_block_time()
        if now_s < held.timelock:
            raise _refuse(f"refund before the escrow's timelock ({held.timelock - now_s} s "
                          "to go on chain)", "refund-too-early")
        note = ("a refund has no deadline on chain: the escrow keeps the funds for the payer "
                "until it is mined, so it can wait as long as the fee needs")
        receipt = await self.sender.send(kind="refund", lock_id=parsed.lock_id,
                                         to=self.config.escrow, data=data, value=0,
                                         keep_raw=True, wait_note=note)
        await self._settled(receipt, parsed, "refunded")

    async def _close_journal(self, kind: str, lock_hex: str) -> None:
        """The chain already shows the outcome: mark a journaled transaction with its receipt."""
        row = self.txlog.find(self.config.chain_id, kind, lock_hex)
        if row is None:
            return
        for member in self.txlog.same_nonce(row):
            if member.state in ("signed", "sent"):
                receipt = await self.sender.receipt(member.tx_hash)
                if receipt is not None:
                    self.txlog.mark(member, "mined" if receipt.ok else "failed", receipt.block)

    async def reconcile(self) -> list[str]:
        """After a restart: every journaled transaction not known to be mined, looked up.

        A found receipt is journaled (and a replacement's other hash marked replaced); a
        transaction whose nonce the chain gave to another is marked dropped; one the chain
        does not know yet stays journaled and is sent again (the same bytes) by the next lock,
        claim or refund of its lock, never replaced by a new one. Returns one line per
        transaction for the operator.
        """
        notes = []
        mined_nonce = await self.node.nonce(self.address, "latest")
        unfinished = self.txlog.unfinished(self.config.chain_id)
        log.info("evm reconcile: %d journaled transaction(s) not known to be mined on chain %d",
                 len(unfinished), self.config.chain_id)
        for row in unfinished:
            found = None
            for member in self.txlog.same_nonce(row):
                receipt = await self.sender.receipt(member.tx_hash)
                if receipt is not None:
                    found = (member, receipt)
                    break
            if found is not None:
                member, receipt = found
                for other in self.txlog.same_nonce(row):
                    if other.id != member.id and other.state in ("signed", "sent"):
                        self.txlog.mark(other, "replaced")
                if member.state in ("signed", "sent"):
                    log.info("evm reconcile: %s %s (journaled %s) found in block %d (%s)",
                             member.kind, member.tx_hash, member.state, receipt.block,
                             "ok" if receipt.ok else "reverted")
                    self.txlog.mark(member, "mined" if receipt.ok else "failed", receipt.block)
                    notes.append(f"evm-htlc: {member.kind} {member.tx_hash[:12]}… found in block "
                                 f"{receipt.block} ({'ok' if receipt.ok else 'reverted'})")
                continue
            if row.sender == self.address and mined_nonce > row.nonce:
                log.info("evm reconcile: %s %s (journaled %s) never mined and its nonce %d is "
                         "taken: dropped", row.kind, row.tx_hash, row.state, row.nonce)
                self.txlog.mark(row, "dropped")
                notes.append(f"evm-htlc: {row.kind} {row.tx_hash[:12]}… never mined and its "
                             f"nonce {row.nonce} is taken: it is sent anew when its deal acts")
                continue
            log.info("evm reconcile: %s %s (journaled %s) is not on chain yet: sent again, "
                     "unchanged, when its deal next acts", row.kind, row.tx_hash, row.state)
            notes.append(f"evm-htlc: {row.kind} {row.tx_hash[:12]}… is not on chain yet; "
                         "it is sent again, unchanged, when its deal next acts")
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

