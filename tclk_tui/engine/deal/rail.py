"""The rail beside the transcript: what the rails hold for this contract, the payee's check of
the payer's lock, and what a lock would take from this wallet's account.

The rail's word outranks the fold where money is concerned (a lock the transcript refused may
still hold the funds), so it is read and kept here for the answers and gates above.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from tclk_tui.engine.deal.fold import DealFold
from tclk_tui.engine.deal.text import ms_ago
from tclk_tui.engine.events import Notice
from tclk_tui.engine.money import Money, money
from tclk_tui.protocol.adaptor import verify_pre_signature
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.errors import RailError
from tclk_tui.protocol.locks import verify_secret
from tclk_tui.protocol.machine import lock_terms
from tclk_tui.protocol.rails import normalize_rail_id, rail_in_offer
from tclk_tui.rails.base import FeeWait, LockQuote, LockTerms, SettlementRail


def claim_message(contract: str) -> bytes:
    """The message a point-lock pre-signature signs on the rehearsal rails.

    tclk/1 leaves the claim message to the rail; `memory` and `paper` settle by secret, so the
    pre-signature is bound to the contract id under a domain tag of this wallet.
    """
    return hashlib.sha256(b"FLOP::tclk::v1|claim|" + contract.encode("ascii")).digest()


@dataclass(frozen=True, slots=True)
class RailCheck:
    """What the rails said about this contract when last asked."""

    rail: str | None
    ref: str | None
    status: str | None  # locked | claimed | refunded | None (no lock found)
    checked_ms: int


@dataclass
class LockCheck:
    """What this wallet established about the counterparty's lock on the rail."""

    rail: str
    ref: str
    verified: bool | None = None  # None: not checked yet
    detail: str = "not checked yet"
    presig_ok: bool | None = None
    # What a chain rail read (chain id, block, confirmations, amount, recipient, timelock).
    facts: tuple[tuple[str, str], ...] = ()



@dataclass
class DealRail(DealFold):
    """The deal's fold, with the rails' last word on its contract (status, lock, quote)."""

    lock_check: LockCheck | None = None
    # The rail's own word on the lock (locked, claimed, refunded; None: unknown or not asked),
    # shown beside the transcript's status; see `watch_rail`.
    rail_status: str | None = None
    rail_check: RailCheck | None = None  # the rails' word on this contract (see check_rail)
    # What locking would take from this wallet's account on a value-moving rail, and which
    # rail it was read for (see quote_lock): the lock gate's balance, gas and margin.
    lock_quote: tuple[str, LockQuote] | None = None

    def _transcript_moved(self) -> None:
        self.rail_check = None  # read against another transcript: ask the rail again

    def rail_disagrees(self) -> bool:
        """True when the rail's word and the transcript's status tell different stories."""
        if self.disagreement() is not None:
            return True
        status, seen = self.state.status, self.rail_status
        if seen is None or status not in ("locked", "claimed", "refunded"):
            return False
        return seen != status

    async def watch_rail(self) -> bool:
        """Ask the rail about a locked or settled deal; True when what it says changed.

        A payer learns the secret from the rail itself when the payee claimed there without
        posting a reveal (the evm-htlc escrow publishes it in its Claimed event): the vault
        keeps it, and an event says so. A lock the rail no longer holds (a reorg) takes the
        payee's verification back.
        """
        state = self.state
        if state.rail is None or state.rail_ref is None or self.observer:
            return False
        rail = self._rail_for(state.rail)
        if rail is None:
            return False
        seen = await read_lock_status(rail, state.rail_ref)
        changed = seen != self.rail_status
        self.rail_status = seen
        self.rail_check = RailCheck(rail=canonical_rail(state.rail), ref=state.rail_ref,
                                    status=seen, checked_ms=self.ctx.now_ms())
        if seen == "claimed" and self.role == "payer" and state.statement:
            try:
                secret = await rail.claimed_with(state.rail_ref)
            except Exception:  # a rail that cannot answer has shown no secret
                secret = None
            remember = getattr(self.ctx.secrets, "remember_revealed", None)
            learned = getattr(self.ctx.secrets, "revealed_secret", None)
            if (isinstance(secret, str) and remember is not None and learned is not None
                    and learned(self.deal_id) is None
                    and verify_secret(self.offer["lock"], state.statement, secret)):
                remember(self.deal_id, secret)
                self.ctx.events.publish(Notice(
                    "info", f"the payee claimed on {state.rail}: the secret was read from the "
                    "rail" + ("" if state.status == "claimed" else
                              " (no reveal frame posted yet)"), deal_id=self.deal_id))
        if self.role == "payee" and state.status == "locked" and self.lock_check is not None \
                and rail.moves_value:
            before = self.lock_check.verified
            await self.check_lock()
            changed = changed or before != self.lock_check.verified
        if changed:
            self._announce(False)
        return changed

    def _lock_claims(self) -> list[tuple[str, str]]:
        """(rail, ref) pairs that may hold this contract's funds: the lock the fold took, then
        any lock frame of a party the fold refused (a cancel raced it, the venue stamped it
        late), then the contract id on every offered rail (our rails key locks by it)."""
        state = self.state
        found: list[tuple[str, str]] = []
        if state.rail and state.rail_ref:
            found.append((state.rail, state.rail_ref))
        parties = {state.payer_did, state.payee_did, self.ctx.did} - {None}
        for record in reversed(self.room_records):
            if record.sender not in parties:
                continue
            frame = try_decode_frame(record.line)
            if frame and frame["type"] == "lock" and frame["contract"] == state.contract:
                found.append((frame["rail"], frame["ref"]))
        if state.contract:
            found += [(rail_id, state.contract) for rail_id in self.offer["rails"]]
        return list(dict.fromkeys(found))

    async def check_rail(self) -> RailCheck | None:
        """Ask the rails what they hold for this contract; the answer outranks the fold."""
        state = self.state
        if not state.contract or self.observer:
            return self.rail_check
        check = RailCheck(rail=None, ref=None, status=None, checked_ms=self.ctx.now_ms())
        for rail_id, ref in self._lock_claims():
            rail = self._rail_for(rail_id)
            if rail is None:
                continue
            status = await read_lock_status(rail, ref)
            if status is not None:
                check = RailCheck(rail=canonical_rail(rail_id), ref=ref, status=status,
                                  checked_ms=check.checked_ms)
                break
        self.rail_check = check
        self.rail_status = check.status
        return check

    def _rail_holds_funds(self) -> bool:
        check = self.rail_check
        return check is not None and check.status == "locked"

    def _rail_refund_open(self) -> bool:
        """The payer may take back what the rail holds: the window is open, whatever the fold."""
        return (self._rail_holds_funds() and self.role == "payer" and not self.observer
                and self.ctx.now_ms() >= self.offer["refundAfterMs"])

    def disagreement(self) -> str | None:
        """Both sides' facts when the rail and the transcript disagree, else None."""
        check, fold = self.rail_check, self.state.status
        if check is None:
            return None
        rail = check.status
        if rail == fold or (rail is None and fold in ("proposed", "accepted", "cancelled")):
            return None
        where = f"{check.rail} ref {check.ref}" if check.rail else "every offered rail"
        return (f"the transcript says {fold}; {where} shows "
                f"{rail or 'no lock'} (read {ms_ago(self.ctx.now_ms() - check.checked_ms)})")

    def _refund_target(self) -> tuple[str | None, str | None]:
        check, state = self.rail_check, self.state
        if check is not None and check.status in ("locked", "refunded") and check.rail:
            return check.rail, check.ref
        return state.rail, state.rail_ref

    def learned_secret(self) -> str | None:
        """The secret the rail (or a reveal) showed this payer, from the vault."""
        learned = getattr(self.ctx.secrets, "revealed_secret", None)
        return None if learned is None else learned(self.deal_id)

    def terms(self) -> LockTerms:
        return lock_terms(self.state)

    async def check_lock(self) -> LockCheck | None:
        """Ask the rail whether the announced lock exists with exactly our terms."""
        state = self.state
        if state.status != "locked" or state.rail is None or state.rail_ref is None:
            return self.lock_check
        check = LockCheck(rail=state.rail, ref=state.rail_ref)
        rail = self._rail_for(state.rail)
        if rail is None:
            check.verified, check.detail = False, f"this wallet has no {state.rail} rail"
        else:
            try:
                ok = await self._verify_on(rail, check)
            except Exception as exc:  # a rail transport failure is "not verified", never yes
                ok, check.detail = False, f"rail check failed: {exc}"
            else:
                if not check.facts:
                    check.detail = ("lock verified with matching terms" if ok else
                                    "the rail holds no lock with these terms under that ref")
                if not ok and await self._claimed_by_us(rail, state.rail_ref):
                    ok, check.detail = True, ("already claimed on the rail with this wallet's "
                                              "secret (before a restart): reveal to announce it")
            check.verified = ok
        if state.presig is not None and state.payer_key and state.statement and state.contract:
            check.presig_ok = verify_pre_signature(
                state.payer_key, "0x" + claim_message(state.contract).hex(), state.statement,
                state.presig)
        self.lock_check = check
        return check

    def rail_kwargs(self, rail: SettlementRail) -> dict[str, Any]:
        """A rail that pays an address (evm-htlc) needs the payee's signed paymentKey: the
        address is derived from it, never taken from anyone's word."""
        if rail.requires_payment_key:
            return {"payee_key": self.state.payee_key}
        return {}

    async def _verify_on(self, rail: SettlementRail, check: LockCheck) -> bool:
        report = await rail.inspect_lock(self.terms(), check.ref, **self.rail_kwargs(rail))
        check.facts = tuple(report.facts)
        check.detail = report.detail if report.ok else f"{report.rule}: {report.detail}"
        return bool(report.ok)

    async def _claimed_by_us(self, rail: SettlementRail, ref: str) -> bool:
        """Our own claim that landed before a crash: the rail says it was claimed with the secret
        our vault holds (nobody else knows it until we reveal)."""
        secret = self.ctx.secrets.deal_secret(self.deal_id)
        statement = self.state.statement
        if secret is None or statement is None:
            return False
        try:
            claimed = await rail.claimed_with(ref)
        except Exception:  # a rail that cannot answer has not shown us a claim
            return False
        return (isinstance(claimed, str) and claimed.lower() == secret.lower()
                and verify_secret(self.offer["lock"], statement, secret))

    def _rail_for(self, rail_id: str) -> SettlementRail | None:
        if rail_id in self.ctx.rails:
            return self.ctx.rails[rail_id]
        for canonical, rail in self.ctx.rails.items():
            if rail_in_offer([rail_id], canonical):
                return rail
        return None

    def _default_rail(self) -> str | None:
        for rail_id in self.offer["rails"]:
            if self._rail_for(rail_id) is not None:
                return rail_id
        return None

    def money(self, rail: str | None = None) -> Money:
        """The deal's amount as it reads on `rail` (or on the first offered rail that knows the
        asset): exact units where the decimals are known, minimal units otherwise."""
        rails = [rail] if rail else list(self.offer["rails"])
        return money(self.offer["amount"], self.offer["asset"], rails, self.ctx.rails)

    async def quote_lock(self, rail: str | None = None) -> LockQuote | None:
        """Read what locking would take from this wallet's account on a value-moving rail
        (balances, allowance, gas, the margin), for the lock gate; None when there is nothing
        to read (not the payer, not accepted, a rail that moves no value)."""
        state = self.state
        chosen = rail or self._default_rail()
        if self.role != "payer" or self.observer or state.status != "accepted" or not chosen:
            return None
        rail_obj = self._rail_for(chosen)
        if rail_obj is None or not rail_obj.moves_value:
            return None
        try:
            quote = await rail_obj.lock_quote(self.terms(), **self.rail_kwargs(rail_obj))
        except Exception as exc:  # an unreachable node: the gate says so and refuses
            quote = LockQuote(facts=(), problems=(f"could not read the account on {chosen}: "
                                                  f"{exc}",), read_ms=self.ctx.now_ms())
        if quote is not None:
            self.lock_quote = (canonical_rail(chosen), quote)
        return quote

    def fee_waits(self) -> list[tuple[str, FeeWait]]:
        """This contract's transactions that wait for the fee on the rails, with their rail."""
        contract = self.state.contract
        if not contract or self.observer:
            return []
        return [(rail_id, wait) for rail_id, rail in self.ctx.rails.items()
                for wait in rail.fee_waits() if wait.contract == contract]


async def read_lock_status(rail: SettlementRail, ref: str) -> str | None:
    try:
        return await rail.lock_status(ref)
    except Exception:  # a rail that cannot answer has not shown a refund
        return None


async def lock_verified(rail: SettlementRail, terms: LockTerms, ref: str, **extra: Any) -> bool:
    try:
        return bool(await rail.verify_lock(terms, ref, **extra))
    except Exception:
        return False


def canonical_rail(rail_id: str) -> str:
    try:
        return normalize_rail_id(rail_id)
    except RailError:
        return rail_id
