"""A deal's gates: what an action that commits money or a secret would do, stated as a request
(facts and blockers), and its confirmation, which re-checks every fact now before it acts.

One gated action at a time per deal (`_acting`): a confirmation re-checks only after the one
before it acted, so two faces confirming at once never lock on two rails.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets as _secrets
from collections.abc import Mapping
from dataclasses import dataclass, field

from tclk_tui.engine.deadlines import moment_text
from tclk_tui.engine.deal.actions import DealActions, chosen_rail
from tclk_tui.engine.deal.rail import canonical_rail
from tclk_tui.engine.deal.text import ms_ago, ms_text, short
from tclk_tui.engine.gates import (
    GateAction,
    GateFact,
    GateRefused,
    GateRequest,
    WrongCode,
    code_for,
    code_prompt,
    wrong_code,
)
from tclk_tui.engine.legal import Legal
from tclk_tui.engine.views import DealView
from tclk_tui.protocol.errors import RailError, TclkError
from tclk_tui.protocol.locks import verify_secret
from tclk_tui.protocol.panel import panel_of
from tclk_tui.protocol.rails import normalize_rail_id, rail_in_offer
from tclk_tui.rails.base import SettlementRail

LOCK_MARGIN_MS = 120_000
"""The lock gate closes this long before refundAfterMs: venue stamps lag the local clock."""


@dataclass
class DealGates(DealActions):
    """Requests and confirmations for lock, reveal, refund and cancel, over the actions below."""

    # One gated action at a time: a confirmation re-checks its facts only after the one
    # before it acted (two faces confirming at once must not lock on two rails).
    _acting: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False, compare=False)

    def _request(self, action: GateAction, facts: list[GateFact], blockers: list[str], *,
                 late: bool = False, code: str | None = None) -> GateRequest:
        if self.observer:
            blockers = ["this wallet is not a party to the contract: another accept came first",
                        *blockers]
        return self.ctx.stated.state(GateRequest(
            action=action, deal_id=self.deal_id, contract=self.state.contract,
            facts=tuple(facts), blockers=tuple(blockers), late=late, confirm_code=code,
            created_ms=self.ctx.now_ms(), token=_secrets.token_hex(8),
            prompt=code_prompt(code, digits_of="contract id") if code else ""))

    def _time_facts(self, now: int) -> list[GateFact]:
        o = self.offer
        return [
            GateFact("time to claimByMs", None if now < o["claimByMs"] else False,
                     ms_text(o["claimByMs"] - now)),
            GateFact("time to refundAfterMs", None if now < o["refundAfterMs"] else False,
                     ms_text(o["refundAfterMs"] - now)),
        ]

    def request_lock(self, rail: str | None = None) -> GateRequest:
        state, now = self.state, self.ctx.now_ms()
        facts: list[GateFact] = []
        blockers: list[str] = []
        chosen = rail or self._default_rail()
        refused: Mapping[str, str] = getattr(self.ctx, "refused_rails", {})
        if chosen is None:  # only set-aside rails offered: say why, not that none is set up
            chosen = next((r for r in self.offer["rails"] if r in refused), None)
        if chosen is not None:
            try:  # the canonical id, before anything touches the rail or a frame names it
                chosen = normalize_rail_id(chosen)
            except RailError as exc:
                blockers.append(str(exc).removeprefix("tclk: "))
        legal = self.can("lock", rail=chosen)
        if not legal.ok and not blockers:
            blockers.append(legal.reason or "the protocol refuses a lock now")
        if legal.ok and (unbound := self.unconfirmed_accept()):
            blockers.append(unbound)
        room_refusal = getattr(self.ctx, "room_refusal", None)
        why_no_room = room_refusal(self.room) if room_refusal is not None else None
        if why_no_room:  # never lock on the rail a lock that could not be announced
            blockers.append(why_no_room)
        if self.offer["refundAfterMs"] - LOCK_MARGIN_MS <= now < self.offer["refundAfterMs"]:
            blockers.append(f"less than {LOCK_MARGIN_MS // 1000} s before refundAfterMs: the "
                            "venue could stamp the lock after it, and the transcript would "
                            "refuse the lock while the rail holds the funds")
        if chosen is not None:
            facts.append(GateFact("rail offered", rail_in_offer(self.offer["rails"], chosen),
                                  chosen))
            rail_obj = self._rail_for(chosen)
            if rail_obj is None:
                blockers.append(refused.get(chosen) or f"this wallet has no {chosen} rail")
            else:
                facts.append(GateFact("settles value", None, "yes" if rail_obj.moves_value else
                                      "NO: rehearsal rail, settles nothing"))
                window = rail_obj.window_note()
                if window is not None:
                    facts.append(GateFact("rail window", None, window))
                if rail_obj.requires_payment_key and not state.payee_key:
                    blockers.append(f"{chosen} pays the payee's paymentKey address, and the "
                                    "payee signed no paymentKey")
        facts.append(GateFact("amount", None, self.money(chosen).gate_text))
        if chosen is not None and (rail_obj := self._rail_for(chosen)) is not None \
                and rail_obj.moves_value:
            self._quote_facts(chosen, facts, blockers, now)
        self._fee_facts("lock", None, facts)  # the quote says what the fee is now
        facts.append(GateFact("payee", None, short(state.payee_did)))
        provenance = getattr(self.ctx, "provenance", None)
        if provenance is not None:  # an offer naming referees: the statement must be theirs
            ok, why = provenance(self.offer, state.statement)
            if ok is not None:
                facts.append(GateFact("statement from the panel", ok, why))
                if not ok:
                    blockers.append(why)
        facts += self._time_facts(now)
        if self.offer["claimByMs"] <= now < self.offer["refundAfterMs"]:
            facts.append(GateFact("payee claim window", False,
                                  "already past claimByMs: the payee could only reveal late"))
        req = self._request("lock", facts, blockers)
        return self.ctx.stated.state(_with_rail(req, chosen))

    def _quote_facts(self, rail: str, facts: list[GateFact], blockers: list[str],
                     now: int) -> None:
        """The account's side of a lock on a value-moving rail, from the last quote."""
        held = self.lock_quote
        if held is None or held[0] != canonical_rail(rail):
            facts.append(GateFact("account", None, "not read yet (it is read again before "
                                  "the lock is sent)"))
            return
        quote = held[1]
        facts += [GateFact(label, None, value) for label, value in quote.facts]
        covered = not quote.problems
        facts.append(GateFact("account covers the lock", covered,
                              f"yes (read {ms_ago(now - quote.read_ms)})" if covered else
                              "; ".join(quote.problems)))
        blockers += [f"the account cannot cover this lock: {p}" for p in quote.problems]

    def _fee_facts(self, action: str, rail: SettlementRail | None,
                   facts: list[GateFact]) -> None:
        """What the gate says of the fee: a transaction of this action already waiting (a
        confirmation joins it), else what the rail's last read says a new one would do."""
        for _rail_id, wait in self.fee_waits():
            if wait.action == action:
                facts.append(GateFact("waiting for the fee", None, wait.text + " (confirming "
                                      "again joins that wait: nothing is sent twice)"))
                return
        note = rail.fee_note() if rail is not None else ""
        if note:
            facts.append(GateFact("network fee", None, note))

    def request_reveal(self) -> GateRequest:
        state, now = self.state, self.ctx.now_ms()
        facts: list[GateFact] = []
        blockers: list[str] = []
        legal = self.can("reveal")
        if not legal.ok:
            blockers.append(legal.reason or "the protocol refuses a reveal now")
        check = self.lock_check
        if check is None or check.ref != state.rail_ref:
            facts.append(GateFact("lock on the rail", False, "not verified yet"))
            blockers.append("the lock has not been verified on the rail")
        else:
            facts.append(GateFact(f"lock on {check.rail}", check.verified, check.detail))
            facts += [GateFact(label, None, value) for label, value in check.facts]
            if not check.verified:
                blockers.append(f"lock not verified on the rail: {check.detail}")
            checked_on = self._rail_for(check.rail)
            by_signature = checked_on is not None and checked_on.settles_by_signature
            if check.presig_ok is False and by_signature:
                facts.append(GateFact("adaptor pre-signature", False,
                                      "does not verify against the payer's payment key"))
                blockers.append("the payer's pre-signature does not verify")
            elif check.presig_ok is False:  # SPEC §3.3: presig is for rails that settle by it
                facts.append(GateFact("adaptor pre-signature", None,
                                      f"does not verify, but {check.rail} settles by secret, "
                                      "not by signature: the claim does not need it"))
            elif check.presig_ok:
                facts.append(GateFact("adaptor pre-signature", True, "verifies"))
        if state.statement:
            facts.append(GateFact("statement", None, state.statement[:18] + "…"))
        facts.append(GateFact("amount", None, self.money(state.rail).gate_text))
        rail = self._rail_for(state.rail) if state.rail else None
        if rail is not None:
            facts.append(GateFact("settles value", None, "yes" if rail.moves_value else
                                  "NO: rehearsal rail, settles nothing"))
        self._fee_facts("claim", rail, facts)
        facts.append(GateFact("payer", None, short(state.payer_did)))
        secret = self.ctx.secrets.deal_secret(self.deal_id)
        holds = secret is not None and state.statement is not None and verify_secret(
            self.offer["lock"], state.statement, secret)
        facts.append(GateFact("secret in the vault opens the statement", holds,
                              "yes" if holds else "no"))
        facts += self._time_facts(now)
        venue_ms = self.venue_time_ms()
        if now < self.offer["refundAfterMs"] <= venue_ms:
            # Our clock may be behind; a record the venue stamped is evidence of its time.
            blockers.append("the venue has already stamped a record after refundAfterMs (this "
                            "computer's clock is behind): the refund window is open")
        late = self.offer["claimByMs"] <= now < self.offer["refundAfterMs"]
        code = code_for(state.contract)
        return self._request("reveal", facts, blockers, late=late, code=code)

    def request_cancel(self) -> GateRequest:
        state = self.state
        legal = self.can("cancel")
        blockers = [] if legal.ok else [legal.reason or "the protocol refuses a cancel now"]
        facts = [GateFact("status", None, state.status)]
        if state.status == "accepted":
            facts.append(GateFact("counterparty", None,
                                  f"{short(self.counterparty())} may be locking right now"))
        return self._request("cancel", facts, blockers)

    def request_refund(self) -> GateRequest:
        state, now = self.state, self.ctx.now_ms()
        check = self.rail_check
        legal = Legal(True) if self._rail_refund_open() else self.can("refund")
        early = now < self.offer["refundAfterMs"] and not legal.ok and (
            legal.reason == "refund window not open yet"
            or (self._rail_holds_funds() and self.role == "payer"))
        if early:  # the one thing to know is when it opens; the facts list the rest
            legal = Legal(False, "the refund window is not open yet: it opens at "
                          + moment_text(self.offer["refundAfterMs"], now))
        blockers = [] if legal.ok else [legal.reason or "the protocol refuses a refund now"]
        if check is not None and check.status == "claimed":
            blockers.append(f"the rail shows the funds claimed ({check.rail} ref {check.ref})")
        rail, ref = self._refund_target()
        facts = [GateFact("rail", None, f"{rail} ref {ref}"), *self._time_facts(now)]
        self._fee_facts("refund", self._rail_for(rail) if rail else None, facts)
        if check is not None:
            facts.insert(1, GateFact("funds on the rail", check.status == "locked",
                                     check.status or "no lock found"))
            if state.status != "locked":
                facts.insert(2, GateFact("transcript", False, f"says {state.status}: the rail "
                                         "decides whether money can come back"))
        return self._request("refund", facts, blockers)

    async def fetch_secret(self) -> None:
        """As payee of a deal whose referees hold the secret, read the sealed mail before
        anything needs the secret: a released secret (or the last share) may be waiting
        there, whichever face asks and whether or not anything else polled the mail."""
        read_mail = getattr(self.ctx, "read_mail", None)
        if (read_mail is None or self.role != "payee" or self.observer
                or self.ctx.secrets.deal_secret(self.deal_id) is not None):
            return
        try:
            named = panel_of(self.offer) is not None
        except TclkError:
            named = False
        if named:
            await read_mail()

    async def confirm(self, request: GateRequest, *, typed_code: str | None = None,
                      acknowledge_late: bool = False) -> DealView:
        """Perform a gated action after re-checking every fact now, on a request this engine
        stated (a face's made-up one is refused); one at a time per deal."""
        async with self._acting:
            return await self._confirm(request, typed_code=typed_code,
                                       acknowledge_late=acknowledge_late)

    async def _confirm(self, request: GateRequest, *, typed_code: str | None,
                       acknowledge_late: bool) -> DealView:
        request = self.ctx.stated.stated(request)
        if request.deal_id != self.deal_id:
            raise GateRefused("this confirmation belongs to another deal")
        if request.action == "reveal":
            await self.fetch_secret()
            await self.check_lock()
            fresh = self.request_reveal()
        elif request.action == "lock":
            await self.quote_lock(chosen_rail(request))  # the account, read again now
            fresh = _with_rail(self.request_lock(chosen_rail(request)), chosen_rail(request))
        elif request.action == "cancel":
            fresh = self.request_cancel()
        elif request.action == "refund":
            await self.check_rail()  # the rail, not the transcript, decides a refund
            fresh = self.request_refund()
        else:
            raise GateRefused(f"{request.action} is not a deal action")
        if fresh.blockers:
            raise GateRefused("; ".join(fresh.blockers))
        if not fresh.code_matches(typed_code):
            raise WrongCode(wrong_code())
        if fresh.late and not acknowledge_late:
            raise GateRefused("the reveal is late (past claimByMs): acknowledge the risk first")
        await getattr(self, f"_do_{request.action}")(fresh)
        self.ctx.stated.answered(request)
        return self.view()


def _with_rail(request: GateRequest, rail: str | None) -> GateRequest:
    """Carry the chosen rail inside the request (as a fact) so confirm locks on that rail."""
    if rail is None or any(f.label == "chosen rail" for f in request.facts):
        return request
    return dataclasses.replace(request,
                               facts=(GateFact("chosen rail", None, rail), *request.facts))
