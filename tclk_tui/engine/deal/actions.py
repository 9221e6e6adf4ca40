"""What a deal does once its gate is confirmed: lock, claim and reveal, refund, cancel, and the
ungated heartbeat and receipt; a transaction that waits for the fee.

Every frame goes out through `_post`, which judges it exactly as a record read from the venue
would be. When the rail moved and the frame saying so could not be journaled, the error says
what the rail did (`_rail_moved`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tclk_tui.engine.crash import crashpoint
from tclk_tui.engine.deal.answers import DealAnswers
from tclk_tui.engine.deal.rail import claim_message, lock_verified, read_lock_status
from tclk_tui.engine.errors import JournalUnwritable
from tclk_tui.engine.events import Notice
from tclk_tui.engine.gates import GateRefused, GateRequest
from tclk_tui.engine.legal import Prospect, judge
from tclk_tui.engine.views import DealView
from tclk_tui.protocol.adaptor import pre_sign
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.rails.base import FeeWaiting, SettlementRail
from tclk_tui.technocore.budget import traffic

log = logging.getLogger("tclk_tui.engine.deal")  # the deal's one log, whichever part decides


@dataclass
class DealActions(DealAnswers):
    """The deal's actions on the rails and in its room (the gated ones run once the gates above
    confirm them)."""

    async def _post(self, room: str | None, built: Prospect) -> None:
        """Post a frame only if the state machine takes it now (h11's rule: what we send is
        judged exactly like what we read)."""
        legal = judge(self.state, built, self.ctx.now_ms())
        if not legal.ok or room is None:
            raise GateRefused(legal.reason or "there is no deal room to post in yet")
        frame = built.frame
        # A reveal's secret is handed over separately so the outbox journals a placeholder.
        await self.ctx.publisher.publish(room, encode_frame(frame), deal_id=self.deal_id,
                                         secret=frame.get("secret"))

    async def _do_lock(self, request: GateRequest) -> None:
        rail_id = chosen_rail(request)
        rail = self._rail_for(rail_id) if rail_id else None
        if rail_id is None or rail is None:
            raise GateRefused("no rail was chosen for this lock")
        await self._lock_now(rail_id, rail)

    async def _lock_now(self, rail_id: str, rail: SettlementRail) -> None:
        terms = self.terms()
        extra = self.rail_kwargs(rail)
        if await lock_verified(rail, terms, terms.contract, **extra):
            ref = terms.contract  # locked before a crash: announce it, never lock twice
        else:
            try:
                ref = await rail.lock(terms, **extra)
            except FeeWaiting as waiting:  # taken: the frame follows once the lock is mined
                return await self._wait_for_fee(
                    "lock", waiting, lambda ref: self._locked(rail_id, ref))
            except Exception as exc:  # a squatter on a world-writable note, an outage
                raise GateRefused(f"the rail refused the lock: {exc}") from None
            crashpoint("after-rail-lock")
        await self._announce_lock(rail_id, ref)

    async def _locked(self, rail_id: str, ref: str) -> None:
        crashpoint("after-rail-lock")
        await self._announce_lock(rail_id, ref)

    async def _announce_lock(self, rail_id: str, ref: str) -> None:
        terms = self.terms()
        self.rail_check = None
        presig = None
        if self.offer["lock"] == "point":
            sk = self.ctx.secrets.payment_secret_key(self.deal_id)
            presig = pre_sign(sk, "0x" + claim_message(terms.contract).hex(), terms.statement)
            if presig is None:
                raise GateRefused("could not pre-sign the claim message")
        with _rail_moved(f"the amount is locked on {rail_id} (ref {ref})", "lock"):
            await self._post(self.room, self._prospect("lock", rail=rail_id, ref=ref,
                                                       presig=presig))

    async def _wait_for_fee(self, action: str, waiting: FeeWaiting,
                            finish: Callable[[Any], Awaitable[None]]) -> None:
        """The rail took `action`, but its transaction waits in the account's queue for the
        fee: the caller hears it waits (the view's fee_wait, a notice) and the frame follows
        once it is mined. A deal driven without a wallet around it waits here instead."""
        desk = getattr(self.ctx, "fee_waits", None)
        if desk is None:
            await finish(await waiting.done)
            return
        desk.follow(self, action, waiting, finish)

    def _lock_on_rail(self) -> tuple[SettlementRail, str]:
        """The rail and ref the contract's lock names (a locked contract has both)."""
        state = self.state
        rail = self._rail_for(state.rail) if state.rail else None
        if rail is None or state.rail_ref is None:
            raise GateRefused(f"this wallet has no {state.rail} rail for the lock")
        return rail, state.rail_ref

    async def _do_reveal(self, request: GateRequest) -> None:
        secret = self.ctx.secrets.deal_secret(self.deal_id)
        if secret is None:
            raise GateRefused("the vault holds no secret for this deal")
        await self._claim_now(secret)

    async def _claim_now(self, secret: str) -> None:
        rail, ref = self._lock_on_rail()
        try:
            await rail.claim(ref, secret)
            crashpoint("after-rail-claim")
        except FeeWaiting as waiting:  # taken: the reveal follows once the claim is mined
            return await self._wait_for_fee("claim", waiting, self._claimed)
        except TclkError as exc:
            # Only our own claim that landed before a crash lets the reveal go on; the rail's
            # word decides, never the wording of its error.
            if not await self._claimed_by_us(rail, ref):
                raise GateRefused(f"the rail refused the claim: {exc}") from None
        with _rail_moved(f"the claim went through on {self.state.rail}: the funds are "
                         "yours, and the secret is out on the rail", "reveal"):
            await self._post(self.room, self._prospect("reveal", secret=secret))

    async def _claimed(self, _result: object) -> None:
        crashpoint("after-rail-claim")
        with _rail_moved(f"the claim went through on {self.state.rail}: the funds are "
                         "yours, and the secret is out on the rail", "reveal"):
            await self._post(self.room, self._prospect("reveal"))

    async def _do_refund(self, request: GateRequest) -> None:
        await self._refund_now()

    async def _refund_now(self) -> None:
        rail_id, ref = self._refund_target()
        rail = self._rail_for(rail_id) if rail_id else None
        if rail is None or ref is None:
            raise GateRefused("no rail holds a lock for this contract")
        try:
            await rail.refund(ref)
        except FeeWaiting as waiting:  # taken: the refund frame follows once it is mined
            return await self._wait_for_fee("refund", waiting,
                                            lambda _: self._refunded(rail_id, ref))
        except TclkError as exc:
            if await read_lock_status(rail, ref) != "refunded":
                raise GateRefused(f"the rail refused the refund: {exc}") from None
        await self._refunded(rail_id, ref)

    async def _refunded(self, rail_id: str | None, ref: str) -> None:
        await self.check_rail()
        built = self._prospect("refund", ref=ref)
        if judge(self.state, built, self.ctx.now_ms()).ok:
            with _rail_moved(f"the refund went through on {rail_id}", "refund"):
                await self._post(self.room, built)
        else:  # the transcript cannot take a refund frame (it says cancelled or accepted)
            self.ctx.events.publish(Notice(
                "info", f"refunded on {rail_id} (ref {ref}); the transcript says "
                f"{self.state.status}, so no refund frame was posted", deal_id=self.deal_id))

    async def _do_cancel(self, request: GateRequest) -> None:
        room = OFFER_ROOM if self.state.status == "proposed" else self.room
        self.cancel_fee_waits("lock")  # a lock waiting for the fee must never follow a cancel
        await self._post(room, self._prospect("cancel"))

    def fee_wait_unwanted(self, action: str) -> str | None:
        """Why this deal no longer wants the lock that waits for the fee (None: it still
        does): a lock frame would be refused now (the deal was cancelled, its window closed).
        A claim or a refund is never dropped here: the rail's own rules decide them (a claim's
        deadline, a lock no longer held)."""
        if action != "lock":
            return None
        legal = self.can("lock")
        if legal.ok:
            return None
        return f"the deal no longer allows a lock ({legal.reason or self.state.status})"

    async def resume_fee_wait(self, rail_id: str, action: str) -> None:
        """Go on with a deal action whose transaction was journaled waiting for the fee before
        a restart (the operator confirmed it then); the rail takes up that same wait."""
        if action == "lock":
            rail = self._rail_for(rail_id)
            if rail is None:
                raise GateRefused(f"this wallet has no {rail_id} rail")
            await self._lock_now(rail_id, rail)
        elif action == "claim":
            secret = self.ctx.secrets.deal_secret(self.deal_id)
            if secret is None:
                raise GateRefused("the vault holds no secret for this deal")
            await self._claim_now(secret)
        elif action == "refund":
            await self.check_rail()
            await self._refund_now()

    def cancel_fee_waits(self, action: str | None = None) -> list[str]:
        """Drop this deal's transactions that wait for the fee (all, or one action's) before
        they are signed; the actions dropped."""
        dropped = []
        for rail_id, wait in self.fee_waits():
            if action not in (None, wait.action):
                continue
            if self.ctx.rails[rail_id].cancel_fee_wait(wait.contract, wait.action):
                dropped.append(wait.action)
        if dropped:
            self.announce()
        return dropped

    def _ungated(self, action: str, note: str | None = None) -> Prospect:
        try:
            built = self._prospect(action, note=note)
        except TclkError as exc:
            raise GateRefused(str(exc).removeprefix("tclk: ")) from None
        legal = judge(self.state, built, self.ctx.now_ms())
        if not legal.ok:
            raise GateRefused(f"no {action} now: {legal.reason}")
        return built

    async def heartbeat(self, note: str | None = None) -> DealView:
        with traffic("optional"):  # a liveness note never takes a lock's or a reveal's write
            await self._post(self.room, self._ungated("heartbeat", note or None))
        return self.view()

    async def receipt(self) -> DealView:
        legal = self.legal_actions()["receipt"]
        if not legal.ok:
            raise GateRefused(f"no receipt now: {legal.reason}")
        state = self.state
        await self._post(self.room, self._ungated("receipt"))
        self.ctx.events.publish(Notice("info", f"receipt posted: {state.status}",
                                       deal_id=self.deal_id))
        return self.view()

    async def reconcile(self) -> DealView:
        """Re-read the rail (the fold is always current); what is then legal (a refund once
        the window is open and the rail holds the funds) is in the view's actions."""
        await self.check_rail()
        if self.role == "payee" and self.state.status == "locked":
            await self.check_lock()
        self._announce(False)
        view = self.view()
        log.info("deal %s reconciled: the transcript says %s, the rail %s%s; legal now: %s",
                 self.deal_id, self.state.status, view.rail_status or "nothing",
                 " (they disagree)" if view.disagreement else "",
                 ", ".join(sorted(view.actions)) or "nothing")
        return view


@contextlib.contextmanager
def _rail_moved(done: str, action: str) -> Iterator[None]:
    """The rail acted and the frame saying so could not be journaled (a full disk): the
    error says what the rail did, not only that nothing was posted."""
    try:
        yield
    except JournalUnwritable as exc:
        raise JournalUnwritable(
            f"{done}, but {exc.why}: the {action} frame that tells the deal room was not "
            f"posted; confirm the {action} again once there is room (the rail is not asked "
            "twice)", happened=exc.happened, why=exc.why) from None


def chosen_rail(request: GateRequest) -> str | None:
    """The rail a lock request carries as its "chosen rail" fact (see `gates._with_rail`)."""
    for fact in request.facts:
        if fact.label == "chosen rail":
            return fact.detail
    return None
