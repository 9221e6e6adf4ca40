"""The payer's lock: quoting it for the gate, then the deposit (and a token's allowance) sent.

An ether lock is one deposit. A token lock may need the escrow allowed to pull the amount
first (see `funding`): the approve and the deposit of one token go one at a time, so two locks
in the same token never spend each other's allowance (or permit nonce). Every step is
journaled and resumed after a crash, never sent twice, and the escrow's storage is read back
after the deposit: the receipt alone is not believed.

Its own object because it is the only part of the rail that spends the account's tokens; the
payee's claim and the payer's refund (`settle`) never touch an allowance.
"""

from __future__ import annotations

import asyncio

from eth_utils import to_checksum_address

from tclk_tui.rails.base import Clock, LockQuote, LockTerms, SettlementError

from .escrow import lock_id
from .expect import TIMELOCK_MARGIN_S, Expectation, format_units
from .feewait import WaitPlan
from .funding import Funding, explain_revert, problem_text
from .holdings import AccountView
from .reads import ChainReads, refuse
from .reconcile import TxJournal
from .ref import format_ref
from .token import ETHER
from .tx import Receipt, Sender

__all__ = ["Locker"]


class Locker:
    """Quotes and makes this account's locks in the escrow."""

    def __init__(self, reads: ChainReads, account: AccountView, sender: Sender,
                 funding: Funding, journal: TxJournal, clock: Clock) -> None:
        self._reads = reads
        self._account = account
        self._sender = sender
        self._funding = funding
        self._journal = journal
        self._clock = clock
        self._token_serial: dict[str, asyncio.Lock] = {}

    def lock_id_for(self, want: Expectation) -> bytes:
        return lock_id(want.contract, want.kind, want.statement, want.recipient, want.timelock,
                       self._sender.address, want.token)

    async def _lock_time(self, want: Expectation, terms: LockTerms) -> int:
        """The chain's time for a lock now (the next block's, or this computer's clock if that
        is later), refused when the payee would have no safe claim window left."""
        now_s = max(await self._reads.next_block_time(), self._reads.clock_s())
        if now_s >= want.timelock - TIMELOCK_MARGIN_S:
            raise refuse("the chain's clock is already within the margin of the timelock: "
                         "the payee would have no safe claim window", "refund-window-open")
        if now_s * 1000 >= int(terms.claim_by_ms):
            raise refuse("the chain's clock is past claimByMs", "refund-window-open")
        return now_s

    async def quote(self, terms: LockTerms, *, payee_key: str | None = None) -> LockQuote:
        """What this lock would take from the account, for the lock gate (nothing sent)."""
        reads = self._reads
        try:
            want = reads.expect(terms, payee_key)
            await reads.check_chain()
            await reads.check_asset(want.asset)
            now_s = max(await reads.next_block_time(), reads.clock_s())
            balance = await self._account.balance()
        except SettlementError as exc:
            return LockQuote(facts=(), problems=(problem_text(exc),),
                             read_ms=int(self._clock()))
        self._account.saw_balance(balance)
        held = await reads.read_lock(self.lock_id_for(want))
        if held.status == "locked":  # sent before a restart: the lock costs nothing more
            return LockQuote(facts=(("account", self._sender.address), ("balance",
                                    format_units(balance, ETHER)),
                                    ("on chain", "already locked under these terms (sent "
                                     "before a restart): nothing more is sent")),
                             read_ms=int(self._clock()))
        if held.status is not None:
            return LockQuote(facts=(), problems=(
                f"this lock is already {held.status} on chain (rule: already-settled)",),
                read_ms=int(self._clock()))
        facts, problems = await self._funding.quote(want, now_s, balance)
        return LockQuote(facts=tuple(facts), problems=tuple(problems),
                         read_ms=int(self._clock()))

    async def lock(self, terms: LockTerms, want: Expectation) -> str:
        config = self._reads.config
        lock = self.lock_id_for(want)
        ref = format_ref(config.chain_id, config.escrow, lock)
        lock_hex = "0x" + lock.hex()
        held = await self._reads.read_lock(lock)
        if held.status == "locked":
            await self._journal.close("deposit", lock_hex)
            return ref  # locked before a crash: the chain says so, nothing is sent again
        if held.status is not None:
            raise refuse(f"this lock is already {held.status}", "already-settled")
        receipt = await self._journal.resume("deposit", lock_hex, None)
        if receipt is not None:
            return await self._confirmed_lock(receipt, lock, ref, want)
        if want.asset.native:
            return await self._deposit(want, terms, lock, ref)
        # Waiting for the fee comes first, in the account's queue where it is journaled and
        # said: a lock must not wait for the fee unseen behind another holding the token.
        await self._sender.queue.until_fits("deposit", lock_hex, self._lock_wait(terms, want))
        serial = self._token_serial.setdefault(want.token, asyncio.Lock())
        async with serial:  # one allowance (or permit nonce) per token at a time
            return await self._deposit(want, terms, lock, ref)

    @staticmethod
    def _lock_wait(terms: LockTerms, want: Expectation) -> WaitPlan:
        """A lock waits for the fee until claimByMs, and no later."""
        return WaitPlan(contract=terms.contract, action="lock",
                        until_s=min(int(terms.claim_by_ms) // 1000,
                                    want.timelock - TIMELOCK_MARGIN_S),
                        until_what="claimByMs",
                        after="the lock is dropped unsent: the payee would have no safe window "
                              "left to claim it")

    async def _deposit(self, want: Expectation, terms: LockTerms, lock: bytes,
                       ref: str) -> str:
        lock_hex = "0x" + lock.hex()
        now_s = await self._lock_time(want, terms)
        if want.asset.native:
            await self._sender.check_value(kind="deposit", lock_id=lock_hex, value=want.amount)
        plan = await self._funding.plan(want, now_s)
        wait = self._lock_wait(terms, want)
        if plan.approve is not None:
            sent = await self._approve(want, lock_hex, plan.approve, wait)
            plan = await self._funding.plan(want, await self._lock_time(want, terms))
            if plan.approve is not None and not sent:
                # The journaled approve (sent before a crash) was taken up, but its allowance
                # is gone (spent by another lock in the token, overwritten from another wallet
                # on the account): one fresh approve of exactly the amount.
                await self._approve(want, lock_hex, plan.approve, wait, fresh=True)
                plan = await self._funding.plan(want, await self._lock_time(want, terms))
            if plan.approve is not None:
                left = plan.token.allowance if plan.token else 0
                raise refuse(f"the token's allowance is still below the amount after the "
                             f"approve ({format_units(left, want.asset)})",
                             "allowance-too-small")
        try:
            receipt = await self._sender.send(kind="deposit", lock_id=lock_hex,
                                              to=self._reads.config.escrow, data=plan.data,
                                              value=plan.value, keep_raw=True, wait=wait,
                                              gas=plan.gas)
        except SettlementError as exc:
            raise explain_revert(exc, "the deposit") from None
        return await self._confirmed_lock(receipt, lock, ref, want)

    async def _approve(self, want: Expectation, lock_hex: str, data: bytes,
                       wait: WaitPlan, *, fresh: bool = False) -> bool:
        """The lock's approve: the journaled one taken up (unless `fresh`), else a new one
        sent; True when a new one was sent."""
        token = want.asset.address or ""
        receipt = None if fresh else await self._journal.resume("approve", lock_hex, None)
        sent = receipt is None
        if receipt is None:
            receipt = await self._sender.send(kind="approve", lock_id=lock_hex, to=token,
                                              data=data, value=0, keep_raw=True, wait=wait)
        if not receipt.ok:
            raise refuse(f"the approve transaction {receipt.tx_hash} reverted", "reverted")
        return sent

    async def _confirmed_lock(self, receipt: Receipt, lock: bytes, ref: str,
                              want: Expectation) -> str:
        if not receipt.ok:
            raise refuse(f"the deposit transaction {receipt.tx_hash} reverted", "reverted")
        held = await self._reads.read_lock(lock)
        if held.status != "locked" or held.amount != want.amount or \
                held.recipient != want.recipient or held.timelock != want.timelock or \
                held.token != to_checksum_address(want.token):
            raise refuse("the node reported the deposit mined but the escrow holds no such "
                         "lock: the receipt is not believed", "receipt-mismatch")
        return ref
