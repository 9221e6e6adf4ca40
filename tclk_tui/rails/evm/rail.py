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

Each lock, claim and refund runs in a task of its own: when its transaction has to wait for
the fee (see `feewait`), the caller is answered at once with `FeeWaiting` (why, and how long
it can wait) while the operation waits in the account's queue and finishes when the fee fits;
calling the same operation again joins it instead of starting a second one.

The class is the facade the engine and the tests hold; each concern is a collaborator with one
job, composed here rather than inherited so each can be read (and tested) without the others:
`ChainReads` (the chain checked and read, every rule a payee checks), `AccountView` (the
account's balances and fee as last read), `Locker` (the payer's lock, its token allowance
included), `Settler` (the claim and the refund), `TxJournal` (the transaction journal squared
with the chain, the reconcile after a restart) and `Operations` (one task per operation, the
fee-wait answer).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tclk_tui.rails.base import (
    Clock,
    FeeWait,
    LockQuote,
    LockTerms,
    RailFeatures,
    SettlementError,
    wall_clock_ms,
)

from .config import EvmConfig, LockReport
from .deploy import deploy_escrow
from .escrow import OnChainLock
from .expect import TIMELOCK_MARGIN_S, Expectation, margin_text
from .funding import Funding
from .holdings import AccountView
from .operations import Operations
from .payer import Locker
from .reads import ChainReads
from .reconcile import TxJournal
from .ref import EvmRef
from .rpc import NodeClient
from .settle import Settler
from .token import TokenAsset
from .tx import REPLACE_AFTER_S, Sender
from .txlog import TxLog

__all__ = ["EvmConfig", "EvmHtlcRail", "LockReport", "deploy_escrow"]


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
        self.node = node or NodeClient(config.url)
        self.sender = Sender(self.node, config.chain_id, private_key, txlog,
                             cap=config.fee_cap, lock_dir=lock_dir,
                             replace_after_s=replace_after_s)
        if on_step is not None:
            self.sender.on_step = on_step
        self.txlog = txlog
        self.funding = Funding(self.sender, config.escrow)
        self.reads = ChainReads(config, self.node, clock)
        self.account = AccountView(self.reads, self.sender)
        self.journal = TxJournal(self.reads, self.sender, txlog)
        self.locker = Locker(self.reads, self.account, self.sender, self.funding,
                             self.journal, clock)
        self.settler = Settler(self.reads, self.sender, self.journal)
        self._ops = Operations(self.sender.queue)

    @property
    def config(self) -> EvmConfig:
        """The profile's settings, held by the reads that every other part goes through (so a
        replaced config is the one all of them see)."""
        return self.reads.config

    @config.setter
    def config(self, config: EvmConfig) -> None:
        self.reads.config = config

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
        """Stop what runs (an operation waiting for the fee stays journaled: resumed when its
        deal next acts, as after a crash), then the node and the journal."""
        await self._ops.close()
        await self.node.aclose()
        self.txlog.close()

    # -- the fee --------------------------------------------------------------------------

    def fee_waits(self) -> tuple[FeeWait, ...]:
        return self.sender.queue.fee_waits()

    def fee_note(self) -> str:
        return self.account.fee_note()

    def cancel_fee_wait(self, contract: str, action: str) -> bool:
        return self.sender.queue.cancel(contract, action)

    # -- assets ---------------------------------------------------------------------------

    def asset(self, symbol: object) -> TokenAsset:
        """The one token an offer's asset names on this chain (SettlementError otherwise)."""
        return self.reads.asset(symbol)

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
        await self.reads.check_asset(asset)

    def _expect(self, terms: LockTerms, payee_key: str | None) -> Expectation:
        return self.reads.expect(terms, payee_key)

    # -- the chain, read ------------------------------------------------------------------

    async def check_chain(self) -> None:
        await self.reads.check_chain()

    async def read_lock(self, lock: bytes, block: str = "latest") -> OnChainLock:
        return await self.reads.read_lock(lock, block)

    async def chain_time(self) -> tuple[int, int]:
        return await self.reads.chain_time()

    async def next_block_time(self) -> int:
        return await self.reads.next_block_time()

    async def inspect_lock(self, terms: LockTerms, ref: str, *,
                           payee_key: str | None = None) -> LockReport:
        return await self.reads.inspect_lock(terms, ref, payee_key=payee_key)

    async def verify_lock(self, terms: LockTerms, ref: str, *,
                          payee_key: str | None = None) -> bool:
        return (await self.inspect_lock(terms, ref, payee_key=payee_key)).ok

    async def lock_status(self, ref: str) -> str | None:
        return await self.reads.lock_status(ref)

    async def claimed_with(self, ref: str) -> str | None:
        return await self.reads.claimed_with(ref)

    async def claimed_event_secret(self, parsed: EvmRef, from_block: int) -> str | None:
        return await self.reads.claimed_event_secret(parsed, from_block)

    # -- the account ----------------------------------------------------------------------

    async def balance(self, address: str | None = None) -> int:
        return await self.account.balance(address)

    async def refresh_account(self) -> None:
        await self.account.refresh()

    def account_text(self) -> str:
        return self.account.text()

    async def holdings(self) -> dict[str, int]:
        return await self.account.holdings()

    # -- the payer's lock, the payee's claim, the payer's refund --------------------------

    def lock_id_for(self, want: Expectation) -> bytes:
        return self.locker.lock_id_for(want)

    async def lock_quote(self, terms: LockTerms, *,
                         payee_key: str | None = None) -> LockQuote:
        return await self.locker.quote(terms, payee_key=payee_key)

    async def lock(self, terms: LockTerms, *, payee_key: str | None = None) -> str:
        want = self._expect(terms, payee_key)
        await self.check_chain()
        await self.check_asset(want.asset)
        lock_hex = "0x" + self.lock_id_for(want).hex()
        result: str = await self._ops.run("lock", lock_hex,
                                          lambda: self.locker.lock(terms, want))
        return result

    async def claim(self, ref: str, secret: str) -> None:
        parsed = self.reads.own_ref(ref)
        await self.check_chain()
        await self._ops.run("claim", parsed.lock_id,
                            lambda: self.settler.claim(parsed, secret))

    async def refund(self, ref: str) -> None:
        parsed = self.reads.own_ref(ref)
        await self.check_chain()
        await self._ops.run("refund", parsed.lock_id, lambda: self.settler.refund(parsed))

    async def reconcile(self) -> list[str]:
        """After a restart: every journaled transaction not known to be mined, looked up
        (see `TxJournal.reconcile`); one line per transaction for the operator."""
        return await self.journal.reconcile()
