"""Offers: the offer form's rules, posting our own offer, accepting someone else's.

A deal is journaled, and its secret derived durably into the vault, before the frame that
commits to it is published. Whether an offer may be accepted at all is the protocol's answer
to the accept this wallet would post (`engine.board.accept_legal`); the rest here is this wallet's
own policy (deadline margins, the rails it has).
"""

from __future__ import annotations

import secrets as _secrets
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from tclk_tui.engine.board.accept_legal import judge_accept, may_accept
from tclk_tui.engine.board.offers_board import AWAITING, OffersBoard
from tclk_tui.engine.crash import crashpoint
from tclk_tui.engine.deal.book import DealBook
from tclk_tui.engine.errors import EngineError, JournalUnwritable, journaling
from tclk_tui.engine.events import EventBus, Notice
from tclk_tui.engine.inert import clean
from tclk_tui.engine.legal import Prospect
from tclk_tui.engine.rail_ids import offered_rails
from tclk_tui.engine.secrets.keeper import PaymentKeyPlan, SecretPlan, VaultKeeper
from tclk_tui.engine.sync.outbox import Outbox
from tclk_tui.engine.views import DealView, FieldProblem, OfferDraft
from tclk_tui.protocol.builders import make_accept, make_offer
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.frames import OfferFrame
from tclk_tui.protocol.locks import validate_deadlines
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.panel import panel_context, panel_of
from tclk_tui.protocol.rails import normalize_rail_ids
from tclk_tui.protocol.side_lines import encode_statement
from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.rails.base import SettlementRail
from tclk_tui.store.journal import Journal

MIN_CLAIM_WINDOW_MS = 60_000
MIN_REFUND_GAP_MS = 60_000


class OfferDesk:
    def __init__(self, *, did: str, journal: Journal, board: OffersBoard, book: DealBook,
                 keeper: VaultKeeper, outbox: Outbox, events: EventBus,
                 rails: Mapping[str, SettlementRail], now_ms: Callable[[], int],
                 refused_rails: Mapping[str, str] | None = None) -> None:
        self.did = did
        self.journal = journal
        self.board = board
        self.book = book
        self.keeper = keeper
        self.outbox = outbox
        self.events = events
        self.rails = rails
        self.refused_rails = refused_rails or {}  # set aside here, with why
        self.now_ms = now_ms

    def validate(self, draft: OfferDraft) -> list[FieldProblem]:
        problems = []
        if draft.role not in ("payer", "payee"):
            problems.append(FieldProblem("role", "payer or payee"))
        if not draft.amount.isascii() or not draft.amount.isdigit() or draft.amount.startswith("0"):
            problems.append(FieldProblem("amount", "a whole number of minimal units, no leading 0"))
        if not (1 <= len(draft.asset) <= 32) or not all(
                c.isascii() and (c.isalnum() or c in "_-") for c in draft.asset):
            problems.append(FieldProblem("asset", "1-32 letters, digits, _ or -"))
        if draft.panel.strip():
            try:
                panel_context([d for d in draft.panel.split(",") if d.strip()])
            except TclkError as exc:
                problems.append(FieldProblem("panel", str(exc).removeprefix("tclk: ")))
        if draft.lock not in ("hash", "point"):
            problems.append(FieldProblem("lock", "hash or point"))
        try:
            rails = normalize_rail_ids([r for r in draft.rails.split(",") if r.strip()] or [""])
        except TclkError as exc:
            problems.append(FieldProblem("rails", str(exc).removeprefix("tclk: ")))
        else:
            refused = [r for r in rails if r in self.refused_rails]
            missing = [r for r in rails if r not in self.rails]
            if refused:  # offered, a counterparty could pick it: refuse it here, with why
                problems.append(FieldProblem("rails", self.refused_rails[refused[0]]))
            elif len(missing) == len(rails):
                problems.append(FieldProblem("rails", "none of these rails is set up in this "
                                             "wallet (available: " + ", ".join(self.rails) + ")"))
            for rail_id in rails:  # a rail that cannot settle the asset says why
                why = self.rails[rail_id].asset_refusal(draft.asset) if rail_id in self.rails \
                    else None
                if why is not None:
                    problems.append(FieldProblem("asset", why))
        for name in ("claim_in_s", "refund_gap_s", "expires_in_s"):
            value = getattr(draft, name)
            if not value.isascii() or not value.isdigit() or int(value) <= 0:
                problems.append(FieldProblem(name, "a positive number of seconds"))
        if not problems and int(draft.expires_in_s) >= int(draft.claim_in_s):
            problems.append(FieldProblem("expires_in_s", "the offer must expire before claimByMs"))
        if "evm-htlc" in offered_rails(draft.rails):
            problems += _evm_problems(draft)
        if draft.job and ":" not in draft.job:
            problems.append(FieldProblem("job", "proto:id, e.g. a2a:task-42"))
        elif draft.job and clean(draft.job) != draft.job:
            problems.append(FieldProblem("job", "control or invisible characters are not "
                                         f"allowed: {clean(draft.job, max_len=60)}"))
        return problems

    async def post(self, draft: OfferDraft) -> DealView:
        problems = self.validate(draft)
        if problems:
            raise EngineError("; ".join(f"{p.field}: {p.message}" for p in problems))
        now = self.now_ms()
        claim_by = now + int(draft.claim_in_s) * 1000
        nonce = _secrets.token_hex(8)
        key_plan = PaymentKeyPlan(offer_id=None, nonce=nonce) if draft.lock == "point" else None
        if draft.role == "payee" and "evm-htlc" in offered_rails(draft.rails):
            # The escrow pays the address of the payee's paymentKey: this profile's account.
            key_plan = PaymentKeyPlan(offer_id=None, nonce=nonce, account=True)
        job = None
        if draft.job:
            proto, _, job_id = draft.job.partition(":")
            job = {"proto": proto.strip(), "id": job_id.strip()}
        try:
            if draft.panel.strip():  # the offer id commits to the referees (SPEC §8)
                job = job or {"proto": "tclk", "id": "arbitrated"}
                job["context"] = panel_context([d for d in draft.panel.split(",") if d.strip()])
            offer = make_offer(
                from_=self.did, role=draft.role, amount=draft.amount, asset=draft.asset,
                lock=draft.lock, rails=[r for r in draft.rails.split(",") if r.strip()],
                claim_by_ms=claim_by, refund_after_ms=claim_by + int(draft.refund_gap_s) * 1000,
                expires_ms=now + int(draft.expires_in_s) * 1000, nonce=nonce, job=job,
                payment_key=self.keeper.payment_public_key(key_plan) if key_plan else None)
            line = encode_frame(offer)
        except TclkError as exc:
            raise EngineError(str(exc)) from None
        secret_plan = None
        if draft.role == "payee" and not draft.panel.strip():  # else the panel mints
            secret_plan = SecretPlan(offer_id=offer["id"], nonce=nonce, lock=draft.lock)
            statement = self.keeper.mint(secret_plan)
            crashpoint("after-secret-derived")
        provisional = TranscriptRecord(room=OFFER_ROOM, seq=0, timestamp_ms=now,
                                       sender=self.did, nonce=None, signature=None, line=line)
        with journaling("the offer", happened=False):
            self.book.journal_deal(offer["id"], draft.role, provisional, secret_plan, key_plan)
        self.book.pending_offers[line] = (offer["id"], draft.role)
        await self.outbox.publish(OFFER_ROOM, line, deal_id=offer["id"])
        if secret_plan is not None:
            await self.outbox.publish(OFFER_ROOM, encode_statement(offer["id"], statement),
                                      deal_id=offer["id"])
        return self.book.find(offer["id"]).view()

    async def publish_missing_statements(self) -> None:
        """Publish the statement line of an open payee offer of ours that a crash kept off the
        board (killed after the offer was journaled, before the statement line was): without
        it no payer can accept. The line is deterministic, so this never posts it twice."""
        queued = {item.text for item in self.journal.outbox.unfinished()}
        for deal in self.book:
            deal_id = deal.deal_id
            row = self.board.get(deal_id)
            if (deal.role != "payee" or deal.offer["from"] != self.did or row is None
                    or row.status not in ("open", AWAITING)
                    or self.board.published_statement(deal_id)):
                continue
            statement = self.keeper.statement_of(deal_id)
            if statement is None:
                continue
            line = encode_statement(deal_id, statement)
            if line not in queued:
                await self.outbox.publish(OFFER_ROOM, line, deal_id=deal_id)
                self.events.publish(Notice("info", f"offer {deal_id[:10]}…: lock statement "
                                           "published after the restart", deal_id=deal_id))

    def accept_refusal(self, offer_id: str) -> str | None:
        """Why this wallet may not accept the offer now, or None: the dry run `accept` runs
        before it commits to anything (the offer still on the board, the accept it would
        post through the machine, deadlines left to claim and refund), which a face asks
        while it shows the offer. The rail is chosen at the accept itself."""
        row = self.board.get(offer_id)
        offer = self.board.offer_frame(offer_id)
        if row is None or offer is None or self.board.offer_record(offer_id) is None:
            return "no such offer on the board"
        now = self.now_ms()
        took_part = offer_id in self.book and not self.book.unsent_accept(offer_id)
        legal = may_accept(offer, row.status, did=self.did, now_ms=now, took_part=took_part)
        if not legal.ok:
            return legal.reason or "the protocol refuses this accept"
        if not validate_deadlines(offer, now, MIN_CLAIM_WINDOW_MS, MIN_REFUND_GAP_MS):
            return "the deadlines leave less than a minute to claim or to refund"
        return None

    async def accept(self, offer_id: str, *, rail: str | None = None,
                     deliver: PrivateDelivery | None = None) -> DealView:
        """Accept on the board, or sign the accept line for the board and hand it to
        `deliver` (a private accept sealed to the offerer, SPEC §2), which sends it once the
        deal is journaled with it.

        A store that refuses a write (a full disk) on the way is one JournalUnwritable that
        says whether the accept reached the venue."""
        why = self.accept_refusal(offer_id)
        if why is not None:
            raise EngineError(why)
        row = self.board.get(offer_id)
        offer = self.board.offer_frame(offer_id)
        record = self.board.offer_record(offer_id)
        assert row is not None and offer is not None and record is not None
        usable = [r for r in offer["rails"] if r in self.rails]
        unsettled = {r: why for r in usable
                     if (why := self.rails[r].asset_refusal(offer["asset"])) is not None}
        usable = [r for r in usable if r not in unsettled]
        if rail is not None and rail in self.refused_rails:
            raise EngineError(self.refused_rails[rail])
        if rail is not None and rail in unsettled:
            raise EngineError(unsettled[rail])
        if not usable:
            refused = [r for r in offer["rails"] if r in self.refused_rails]
            raise EngineError(self.refused_rails[refused[0]] if refused else
                              next(iter(unsettled.values()), None) or
                              "none of the offered rails is set up in this wallet")
        if rail is not None and rail not in usable:
            raise EngineError(f"rail {rail} is not offered or not set up here")
        try:
            return await self._accept(offer_id, offer, row.status, record, deliver)
        except JournalUnwritable as exc:
            deal = self.book.get(offer_id)
            kept = deal is not None and deal.letter is not None
            raise _accept_outcome(exc, private=deliver is not None, kept=kept) from None

    async def _accept(self, offer_id: str, offer: OfferFrame, board_status: str,
                      record: TranscriptRecord, deliver: PrivateDelivery | None) -> DealView:
        role = "payee" if offer["role"] == "payer" else "payer"
        nonce = _secrets.token_hex(8)
        secret_plan = None
        key_plan = PaymentKeyPlan(offer_id=offer_id, nonce=nonce) if offer["lock"] == "point" \
            else None
        if role == "payee" and "evm-htlc" in offer["rails"] and "evm-htlc" in self.rails:
            # The escrow pays the address of the payee's paymentKey: this profile's account.
            key_plan = PaymentKeyPlan(offer_id=offer_id, nonce=nonce, account=True)
        try:
            panel = panel_of(offer)
        except TclkError as exc:
            raise EngineError(f"the offer's panel is malformed: {exc}") from None
        if role == "payee" and panel is None:
            secret_plan = SecretPlan(offer_id=offer_id, nonce=nonce, lock=offer["lock"])
            with journaling("the accept's secret", happened=False, store="the vault"):
                statement = self.keeper.mint(secret_plan)  # durably in the vault first
            crashpoint("after-secret-derived")
        else:  # the payee-offerer's statement, or the one the offer's panel published
            published = self.board.published_statement(offer_id)
            if published is None:
                raise EngineError("the offer's panel has not published its statement yet"
                                  if panel else
                                  "the payee has not published its lock statement yet")
            statement = published
        try:
            with journaling("the accept's payment key", happened=False, store="the vault"):
                payment_key = self.keeper.payment_public_key(key_plan) if key_plan else None
            accept = make_accept(offer, from_=self.did, statement=statement, nonce=nonce,
                                 payment_key=payment_key)
            line = encode_frame(accept)
        except TclkError as exc:
            raise EngineError(str(exc)) from None
        # What we post is judged exactly like what we read (the clock moved since the dry-run).
        legal = judge_accept(offer, board_status, Prospect(dict(accept)), self.now_ms())
        if not legal.ok:
            raise EngineError(legal.reason or "the protocol refuses this accept")
        with journaling("the accept", happened=False):
            letter = deliver.sign(line) if deliver is not None else None  # its board nonce
            self.book.journal_deal(offer_id, role, record, secret_plan, key_plan,
                                   letter=letter)
        deal = self.book.open_accepted(offer_id, role, record)
        if deliver is not None and letter is not None:
            await deliver.send(offer, letter)
        else:
            await self.outbox.publish(OFFER_ROOM, line, deal_id=offer_id)
        return deal.view()


class PrivateDelivery(Protocol):
    """A private accept: signed for the board first (journaled with the deal), then sealed to
    the offerer's mailbox instead of posted."""

    def sign(self, line: str) -> dict: ...

    async def send(self, offer: Mapping[str, Any], letter: dict) -> object: ...


def _accept_outcome(exc: JournalUnwritable, *, private: bool,
                    kept: bool) -> JournalUnwritable:
    """The refusal of a store during an accept, said as what became of the accept."""
    if exc.happened:
        where = "the venue (sealed to the offerer's mailbox)" if private else "the venue"
        text = (f"the accept reached {where}, but {exc.why}: this wallet's record of it is "
                "missing until the wallet next opens, which reads it back; nothing is lost")
    elif kept:
        text = (f"the accept did not reach the venue: {exc.why}. It is signed and kept in the "
                "journal, and sent again, as it is, when the wallet next opens")
    else:
        text = (f"the accept did not reach the venue: {exc.why}, so nothing was posted; free "
                "some room and accept again")
    return JournalUnwritable(text, happened=exc.happened, why=exc.why)


def _evm_problems(draft: OfferDraft) -> list[FieldProblem]:
    """evm-htlc settles inside the coordination window by a fixed margin (which assets it
    settles, the rail itself says: `asset_refusal`)."""
    # Imported here: the rail's package loads the Ethereum libraries, which only evm drafts need.
    from tclk_tui.rails.evm.expect import TIMELOCK_MARGIN_S, margin_text

    problems = []
    if draft.amount.isascii() and draft.amount.isdigit() and int(draft.amount) >= 2**256:
        problems.append(FieldProblem("amount", "evm-htlc amounts must be below 2**256"))
    gap = draft.refund_gap_s
    if gap.isascii() and gap.isdigit() and int(gap) < 2 * TIMELOCK_MARGIN_S:
        problems.append(FieldProblem("refund_gap_s", f"at least {2 * TIMELOCK_MARGIN_S} s on "
                                     f"evm-htlc: {margin_text()}"))
    return problems
