"""Transactions that wait for the fee: one queue per account, journaled, resumed after a crash.

The profile caps what a transaction pays per gas (`max_fee_gwei`, `max_priority_fee_gwei`).
When the network's base fee plus the tip does not fit under the cap, the transaction waits here,
before anything is signed:

- It is journaled (`evm_wait`, with its deal action and its deadline) before its caller hears
  that it waits, so a restart resumes the wait instead of forgetting it, and the operator can
  cancel it until it is signed.
- The head of the queue reads the fee again at each new block (it polls the block number every
  `WAIT_POLL_S`, and reads the fee anyway every `FEE_RECHECK_S`), and goes when it fits.
- Nonces stay dense because a waiting transaction holds none: its nonce is taken when it is
  signed, from the chain and the journal as every nonce is (see `tx`). Nothing later can take
  "its" nonce and leave a gap when it is cancelled or expires. While one waits, every later
  transaction of the account queues behind it in arrival order (the fee is the same for all,
  so a later one could not go first anyway), and each keeps its place until it has its nonce:
  they are signed, and mined, in the order they began to wait.
- A deadline drops a waiting transaction unsent once it passes: a claim's is the escrow's
  timelock less the margin (mined later it would revert, and publish its secret for nothing),
  a lock's is claimByMs (the payee would have no safe window left). A refund has none: it waits
  as long as the fee needs, the funds staying in the escrow meanwhile.

A rail operation learns that its transaction waits through `CURRENT_OP`, the `OpSignal` the
rail sets around the operation's task: the rail answers its caller at once (`FeeWaiting`) while
the operation goes on in its task and sends when the fee fits.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from tclk_tui.protocol.money import units_text
from tclk_tui.rails.base import FeeWait, SettlementError

from .txlog import TxLog, WaitRow

if TYPE_CHECKING:
    from .tx import FeeRead

__all__ = ["CURRENT_OP", "FEE_RECHECK_S", "WAIT_POLL_S", "FeeQueue", "OpSignal", "Ticket",
           "WaitPlan", "utc_text"]
log = logging.getLogger(__name__)

WAIT_POLL_S = 1.0  # how often the head of the queue asks for the block number
FEE_RECHECK_S = 15.0  # the fee is read at least this often, new block or not
_ACTION_OF = {"deposit": "lock", "approve": "lock", "claim": "claim", "refund": "refund"}


def utc_text(unix_s: int) -> str:
    return datetime.fromtimestamp(unix_s, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _gwei(wei: int) -> str:
    return f"{units_text(wei, 9)} gwei"


@dataclass(frozen=True, slots=True)
class WaitPlan:
    """What a transaction serves, and how long it may wait for the fee (None: indefinitely)."""

    contract: str
    action: str  # lock | claim | refund
    until_s: int | None = None  # chain time (unix s) at which it is dropped unsent
    until_what: str = ""  # the deadline in words: "claimByMs"
    after: str = ""  # what passing it means

    def horizon(self, now_s: int) -> str:
        if self.until_s is None:
            return ("a refund has no deadline on chain: it can wait indefinitely, but the funds "
                    "stay locked in the escrow until it is sent")
        left = max(0, self.until_s - now_s)
        return (f"it can wait until {self.until_what} ({utc_text(self.until_s)}), {left} s "
                f"from now; after that {self.after}")


class OpSignal:
    """How a rail operation, running in its own task, tells its caller that it waits."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.wait: FeeWait | None = None

    def waiting(self, wait: FeeWait) -> None:
        self.wait = wait
        self.event.set()


CURRENT_OP: ContextVar[OpSignal | None] = ContextVar("tclk_evm_operation", default=None)


@dataclass(eq=False)
class Ticket:
    """One transaction's place in the queue while it waits for the fee or for its turn."""

    kind: str
    lock_id: str
    plan: WaitPlan | None
    row: WaitRow | None = None  # journaled once it waits for the fee (or adopted after a restart)
    signal: OpSignal | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: bool = False
    told: bool = False
    polled: bool = False  # it has read the fee as the head at least once
    wait: FeeWait | None = None

    @property
    def action(self) -> str:
        return self.plan.action if self.plan is not None else _ACTION_OF[self.kind]


class FeeQueue:
    """The account's transactions waiting for the fee, in the order they began to wait."""

    def __init__(self, *, txlog: TxLog, chain_id: int, sender: str,
                 read_fees: Callable[[], Awaitable[FeeRead]],
                 block_number: Callable[[], Awaitable[int]],
                 now_s: Callable[[], Awaitable[int]],
                 on_step: Callable[[str], None] = lambda name: None,
                 clock_ms: Callable[[], int] | None = None) -> None:
        self.txlog = txlog
        self.chain_id = chain_id
        self.sender = sender
        self._read_fees = read_fees
        self._block_number = block_number
        self._now_s = now_s
        self._on_step = on_step
        self._clock_ms = clock_ms or (lambda: time.time_ns() // 1_000_000)
        self._tickets: list[Ticket] = []
        self._rows = {row.id: row for row in txlog.waits(chain_id, sender)}
        self._epoch = 0  # fee reads by the head so far
        self._fits = True  # what the last read said
        self._last: FeeRead | None = None
        self._last_now_s = 0
        self._block: int | None = None
        self._read_at = 0.0
        self._next_poll = 0.0
        self._warned = ""

    # -- what waits -------------------------------------------------------------------------

    def fee_waits(self) -> tuple[FeeWait, ...]:
        """Every journaled wait, oldest first: the live word of a ticket holding it, else the
        journal's (one waiting since before a restart, `held` False)."""
        held = {t.row.id: t for t in self._tickets if t.row is not None}
        out = []
        for row_id, row in sorted(self._rows.items()):
            ticket = held.get(row_id)
            if ticket is not None and ticket.wait is not None:
                out.append(ticket.wait)
                continue
            out.append(FeeWait(contract=row.contract, action=row.action, reason=row.reason,
                               horizon=_plan_of(row).horizon(int(self._clock_ms() // 1000)),
                               until_ms=None if row.until_s is None else row.until_s * 1000,
                               since_ms=row.created_ms, held=ticket is not None))
        return tuple(out)

    def cancel(self, contract: str, action: str) -> bool:
        """The operator drops a waiting transaction: it is marked cancelled (on disk) before
        anything else, so a send that has not taken it out of the queue yet never will."""
        done = False
        for row in list(self._rows.values()):
            if row.contract != contract or row.action != action:
                continue
            if self.txlog.end_wait(row, "cancelled", "cancelled by the operator before it was "
                                   "sent"):
                done = True
                log.info("evm %s for lock %s: the operator cancelled it while it waited for "
                         "the fee", row.kind, row.lock_id)
            self._rows.pop(row.id, None)
            for ticket in self._tickets:
                if ticket.row is not None and ticket.row.id == row.id:
                    ticket.cancelled = True
                    ticket.wake.set()
        return done

    def abandon(self, action: str, lock_id: str, reason: str) -> None:
        """The operation a journaled wait belonged to ended without sending (refused on the way
        out: the balance, the chain's state): the wait is over, dropped, never resumed."""
        held = {t.row.id for t in self._tickets if t.row is not None}
        for row in list(self._rows.values()):
            if (row.action, row.lock_id) == (action, lock_id) and row.id not in held:
                self.txlog.end_wait(row, "dropped", reason)
                self._rows.pop(row.id, None)

    def expire_due(self, now_s: int) -> list[WaitRow]:
        """Journaled waits nothing holds whose deadline has passed: dropped unsent."""
        held = {t.row.id for t in self._tickets if t.row is not None}
        gone = []
        for row in list(self._rows.values()):
            if row.id in held or row.until_s is None or now_s < row.until_s:
                continue
            if self.txlog.end_wait(row, "expired", "its deadline passed while it waited for "
                                   "the fee: dropped unsent"):
                gone.append(row)
            self._rows.pop(row.id, None)
        return gone

    # -- taking a place ---------------------------------------------------------------------

    async def admit(self, kind: str, lock_id: str, plan: WaitPlan | None
                    ) -> tuple[dict, Ticket | None]:
        """Fee fields that fit under the cap now, and the ticket holding this transaction's
        place until it has its nonce (None when nothing waited and nothing waits ahead: it goes
        at once). Waits (journaled, its caller told) while the fee does not fit or others wait
        ahead. A wait journaled for the same operation before (a restart, or `until_fits`) is
        taken up again, never journaled twice."""
        action = plan.action if plan is not None else _ACTION_OF[kind]
        adopted = next((row for row in self._rows.values()
                        if (row.action, row.lock_id) == (action, lock_id)), None)
        if any((t.action, t.lock_id) == (action, lock_id) for t in self._tickets):
            raise SettlementError(f"tclk: evm-htlc a {action} for lock {lock_id} is already in "
                                  "this account's queue (one at a time)", code="already-queued")
        if adopted is None and not self._tickets:
            read = await self._read_fees()
            if read.fits and not self._tickets:
                return read.fields(), None
        ticket = Ticket(kind=kind, lock_id=lock_id, plan=plan, row=adopted,
                        signal=CURRENT_OP.get())
        self._tickets.append(ticket)
        try:
            return await self._turn(ticket), ticket
        except BaseException:
            self._leave(ticket)  # a cancel of the task is a close, like a crash: still journaled
            raise

    async def until_fits(self, kind: str, lock_id: str, plan: WaitPlan) -> None:
        """Wait in the queue, as `admit`, until the fee fits and no one waits ahead, then give
        the place up while the caller prepares (a token lock plans its approve or permit only
        once it holds its token's lock); the journaled wait stays open until the transaction
        itself is admitted and signed."""
        fees, ticket = await self.admit(kind, lock_id, plan)
        del fees
        if ticket is not None:
            self._leave(ticket)

    def taken(self, ticket: Ticket | None) -> None:
        """The ticket's transaction is about to be signed (its caller holds the account's send
        lock): out of the wait in the journal, unless the operator cancelled it first."""
        if ticket is None or ticket.row is None:
            return
        if not self.txlog.end_wait(ticket.row, "sent", "signed once the fee fit"):
            raise _cancelled(ticket)
        self._rows.pop(ticket.row.id, None)
        log.info("evm %s for lock %s: the fee fits now; it leaves the queue to be signed",
                 ticket.kind, ticket.lock_id)

    def release(self, ticket: Ticket | None, reason: str | None = None) -> None:
        """The ticket's transaction has its nonce (or ended without one: `reason` says why,
        journaled as dropped): the next in the queue takes its turn."""
        if ticket is None:
            return
        if reason is not None and ticket.row is not None and \
                self.txlog.end_wait(ticket.row, "dropped", reason):
            self._rows.pop(ticket.row.id, None)
        self._leave(ticket)

    def _leave(self, ticket: Ticket) -> None:
        if ticket in self._tickets:
            head = self._tickets[0] is ticket
            self._tickets.remove(ticket)
            if head and self._tickets:
                self._next_poll = 0.0  # the next one reads the fee at once
                self._block = None
                self._tickets[0].wake.set()

    # -- waiting ----------------------------------------------------------------------------

    async def _turn(self, ticket: Ticket) -> dict:
        epoch = self._epoch
        if self._tickets[0] is not ticket:
            self._next_poll = 0.0  # a newcomer: the head looks at the fee again now
            self._block = None
            self._tickets[0].wake.set()
        while True:
            ticket.wake.clear()  # before looking: a wake from now on is not lost
            if ticket.cancelled:
                raise _cancelled(ticket)
            if self._tickets[0] is ticket:
                read = await self._poll(force=not ticket.polled)
                ticket.polled = ticket.polled or read is not None
                if read is not None:
                    now_s = self._last_now_s
                    self._expire_if_due(ticket, now_s)
                    if read.fits:
                        return read.fields()
                    self._waits(ticket, read, now_s, ahead=0)
            elif self._epoch > epoch and self._last is not None:
                self._expire_if_due(ticket, self._last_now_s)
                if not self._fits:
                    self._waits(ticket, self._last, self._last_now_s,
                                ahead=self._tickets.index(ticket))
            # The head wakes for its next poll; those behind it for the head's reads, its
            # leaving, or a cancel.
            await _sleep(ticket.wake, WAIT_POLL_S)

    async def _poll(self, *, force: bool = False) -> FeeRead | None:
        """The fee, when a new block came (or `FEE_RECHECK_S` passed, or `force`); None
        otherwise, and when the node does not answer (the wait goes on: an outage is not a
        reason to drop anything)."""
        now = time.monotonic()
        if now < self._next_poll and not force:
            return None
        self._next_poll = now + WAIT_POLL_S
        try:
            block = await self._block_number()
            if block == self._block and now < self._read_at + FEE_RECHECK_S and not force:
                return None
            read = await self._read_fees()
            now_s = await self._now_s()
        except SettlementError as exc:
            text = str(exc)
            if text != self._warned:
                self._warned = text
                log.warning("evm queue: could not read the fee while transactions wait: %s",
                            exc.code)
            return None
        self._block, self._read_at = block, now
        self._last_now_s = now_s
        self._note(read)
        return read

    def _note(self, read: FeeRead) -> None:
        self._epoch += 1
        self._fits = read.fits
        self._last = read
        for ticket in self._tickets[1:]:  # those behind the head look at the news
            ticket.wake.set()

    def _expire_if_due(self, ticket: Ticket, now_s: int) -> None:
        plan = ticket.plan
        if plan is None or plan.until_s is None or now_s < plan.until_s:
            return
        if ticket.row is not None:
            self.txlog.end_wait(ticket.row, "expired", f"waited for the fee past "
                                f"{plan.until_what}: dropped unsent")
            self._rows.pop(ticket.row.id, None)
        log.warning("evm %s for lock %s: waited for the fee past %s; dropped unsent",
                    ticket.kind, ticket.lock_id, plan.until_what)
        raise SettlementError(
            f"tclk: evm-htlc the {plan.action} waited for the fee past {plan.until_what} "
            f"({utc_text(plan.until_s)}) and is dropped, unsent: {plan.after}",
            code="fee-wait-expired")

    def _waits(self, ticket: Ticket, read: FeeRead, now_s: int, *, ahead: int) -> None:
        """Journal the wait (once) and tell the operation's caller (once); later reads only
        refresh the reason."""
        reason = read.reason()
        if ahead:
            reason = (f"{ahead} earlier transaction(s) of this account wait for the fee ahead "
                      f"of it ({reason})")
        plan = ticket.plan
        if plan is None:  # outside any deal (a deployment): it just waits
            return
        if ticket.row is None:
            ticket.row = self.txlog.open_wait(
                chain_id=self.chain_id, sender=self.sender, kind=ticket.kind,
                lock_id=ticket.lock_id, contract=plan.contract, action=plan.action,
                until_s=plan.until_s, reason=reason, created_ms=int(self._clock_ms()))
            self._rows[ticket.row.id] = ticket.row
            log.warning("evm %s for lock %s waits for the fee (journaled, nothing signed): %s",
                        ticket.kind, ticket.lock_id, reason)
            self._on_step(f"evm-{ticket.kind}-waits")
        ticket.wait = FeeWait(contract=plan.contract, action=plan.action, reason=reason,
                              horizon=plan.horizon(now_s),
                              until_ms=None if plan.until_s is None else plan.until_s * 1000,
                              since_ms=ticket.row.created_ms)
        if not ticket.told and ticket.signal is not None:
            ticket.told = True
            ticket.signal.waiting(ticket.wait)


async def _sleep(wake: asyncio.Event, timeout_s: float) -> None:
    """Until `wake` is set or `timeout_s` passed. Not `asyncio.wait_for`: on Python 3.11 it
    can swallow a cancel that lands as the event is set, and a closing wallet's cancel must
    always stop the wait."""
    waiter = asyncio.ensure_future(wake.wait())
    try:
        await asyncio.wait({waiter}, timeout=timeout_s)
    finally:
        waiter.cancel()


def _cancelled(ticket: Ticket) -> SettlementError:
    return SettlementError(f"tclk: evm-htlc the {ticket.action} was cancelled while it waited "
                           "for the fee: nothing was signed or sent", code="fee-wait-cancelled")


def _plan_of(row: WaitRow) -> WaitPlan:
    """A journaled wait's deadline, in words, as its operation planned it."""
    what = {"lock": "claimByMs", "claim": "the escrow's timelock less the margin"}
    after = {"lock": "the lock is dropped unsent",
             "claim": "the claim is dropped unsent (its secret is never published)"}
    return WaitPlan(contract=row.contract, action=row.action, until_s=row.until_s,
                    until_what=what.get(row.action, ""), after=after.get(row.action, ""))


def fee_reason(base: int, tip: int, cap_fee: int) -> str:
    """Why a transaction waits, in gwei."""
    if tip:
        return (f"the network's base fee is {_gwei(base)}, and with a tip of {_gwei(tip)} "
                f"that is {_gwei(base + tip)}, above this profile's max_fee_gwei of "
                f"{_gwei(cap_fee)}")
    return (f"the network's base fee is {_gwei(base)}, above this profile's max_fee_gwei of "
            f"{_gwei(cap_fee)}")
