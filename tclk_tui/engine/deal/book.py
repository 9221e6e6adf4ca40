"""Every deal this wallet takes part in (or watches), and the journal row behind each.

The book is the one place that creates a `DealSession`, so a deal is never held twice and its
journal row always says what its fold says.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tclk_tui.engine.board.offers_board import OffersBoard
from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.deal.fold import DealFold
from tclk_tui.engine.errors import EngineError, journaling
from tclk_tui.engine.events import EventBus, Notice
from tclk_tui.engine.id_prefix import id_prefix
from tclk_tui.engine.ports import DealContext
from tclk_tui.engine.secrets.keeper import PaymentKeyPlan, SecretPlan, VaultKeeper
from tclk_tui.engine.views import DealView
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.store.journal import Journal


def _record_meta(record: TranscriptRecord) -> dict[str, Any]:
    return {"room": record.room, "seq": record.seq, "timestamp_ms": record.timestamp_ms,
            "sender": record.sender, "nonce": record.nonce, "signature": record.signature,
            "line": record.line}


def _bound_accept(meta: dict[str, Any]) -> tuple[TranscriptRecord, bool] | None:
    """The accept a journaled deal is bound to, if it was bound before the restart."""
    try:
        record = TranscriptRecord(**meta["accept_record"])
    except (KeyError, TypeError):
        return None
    return record, bool(meta.get("accept_private"))


class DealBook:
    def __init__(self, journal: Journal, keeper: VaultKeeper, ctx: DealContext,
                 events: EventBus) -> None:
        self.journal = journal
        self.keeper = keeper
        self._ctx = ctx
        self._events = events
        self._sessions: dict[str, DealSession] = {}
        self._rows: dict[str, int] = {}
        self._row_facts: dict[str, tuple[Any, ...]] = {}  # what each journal row last said
        # Our own offers journaled but not yet seen back on the board: line -> (id, role).
        self.pending_offers: dict[str, tuple[str, str]] = {}

    # -- reading ------------------------------------------------------------------------------

    def __contains__(self, deal_id: object) -> bool:
        return deal_id in self._sessions

    def __iter__(self) -> Iterator[DealSession]:
        return iter(list(self._sessions.values()))

    def get(self, deal_id: str) -> DealSession | None:
        return self._sessions.get(deal_id)

    def find(self, deal_id: str) -> DealSession:
        """A deal by its offer id or contract id, or a unique prefix of either."""
        try:
            return self._sessions[deal_id]
        except KeyError:
            deal_id = id_prefix(deal_id, "deal")
            matches = [d for k, d in self._sessions.items()
                       if k.startswith(deal_id) or (d.state.contract or "").startswith(deal_id)]
            if len(matches) == 1:
                return matches[0]
            raise EngineError(f"no deal {deal_id!r}" if not matches else
                              f"{deal_id!r} names more than one deal") from None

    def in_room(self, room: str) -> DealSession | None:
        return next((d for d in self._sessions.values() if d.room == room), None)

    def views(self) -> list[DealView]:
        return [d.view() for d in sorted(self._sessions.values(),
                                         key=lambda d: -d.offer_record.timestamp_ms)]

    def row_id(self, deal_id: str | None) -> int | None:
        return self._rows.get(deal_id or "")

    # -- the journal ----------------------------------------------------------------------------

    def restore(self) -> list[DealSession]:
        """Rebuild deals from the journal (plans, sessions); the caller folds their records in."""
        restored: list[DealSession] = []
        for row in self.journal.deals.all():
            meta = row.terms
            try:
                offer_record = TranscriptRecord(**meta["offer_record"])
            except (KeyError, TypeError):
                continue
            self._rows[row.offer_id] = row.id
            self._install_plans(row.offer_id, meta)
            if offer_record.signature is None:  # posted (or not) just before a crash
                self.pending_offers[offer_record.line] = (row.offer_id, row.role)
                continue
            restored.append(self._open(row.offer_id, row.role, offer_record,
                                       bound=_bound_accept(meta), letter=meta.get("letter")))
        for deal in restored:
            if self.unsent_accept(deal.deal_id):
                self._events.publish(Notice(
                    "warning", f"offer {deal.deal_id[:10]}…: the accept was journaled but never "
                    "sent (the wallet stopped in between), so nothing was said to the venue: "
                    "you may accept it again", deal_id=deal.deal_id))
        return restored

    def unsent_accept(self, offer_id: str) -> bool:
        """A deal on someone else's offer journaled without its accept ever reaching the
        outbox (a kill or a full disk between the two): nothing of ours was said, so the
        operator may accept again instead of the deal sitting stuck."""
        deal, row_id = self._sessions.get(offer_id), self._rows.get(offer_id)
        if deal is None or row_id is None or deal.offer.get("from") == self._ctx.did:
            return False
        if deal.letter is not None:  # a signed private accept: sent again as it is, never anew
            return False
        if deal.state.status != "proposed":
            return False
        return not any(item.deal_id == row_id for item in self.journal.outbox.items())

    def _install_plans(self, deal_id: str, meta: dict[str, Any]) -> None:
        if meta.get("secret_plan"):
            self.keeper.plan_secret(deal_id, SecretPlan(**meta["secret_plan"]))
        if meta.get("key_plan"):
            self.keeper.plan_payment_key(deal_id, PaymentKeyPlan(**meta["key_plan"]))

    def journal_deal(self, offer_id: str, role: str, offer_record: TranscriptRecord,
                     secret_plan: SecretPlan | None, key_plan: PaymentKeyPlan | None, *,
                     letter: dict | None = None) -> None:
        """Journal a deal we are about to commit to, with the plans of its secrets (and, for a
        private accept, the signed letter, so a restart sends that very accept again)."""
        meta = {
            "offer_record": _record_meta(offer_record),
            "secret_plan": secret_plan.to_dict() if secret_plan else None,
            "key_plan": key_plan.to_dict() if key_plan else None,
            "letter": letter,
        }
        if offer_id in self._rows:  # a journaled accept that was never sent: take it again
            self.journal.deals.update(self._rows[offer_id], terms=meta)
        else:
            row = self.journal.deals.add(offer_id=offer_id, role=role, status="proposed",
                                         terms=meta)
            self._rows[offer_id] = row.id
        self._install_plans(offer_id, meta)

    def _open(self, offer_id: str, role: str, record: TranscriptRecord,
              bound: tuple[TranscriptRecord, bool] | None = None,
              letter: object = None) -> DealSession:
        accept, private = bound if bound is not None else (None, False)
        deal = DealSession(self._ctx, offer_id, role, record, accept_record=accept,
                           accept_private=private, on_bound=self._journal_accept,
                           letter=letter if isinstance(letter, dict) else None)
        self._sessions[offer_id] = deal
        return deal

    def _journal_accept(self, deal: DealFold) -> None:
        """The accept a deal just bound to, in its journal row: a restart folds it first again,
        whatever else the board or the mailbox holds by then."""
        row_id = self._rows.get(deal.deal_id)
        with journaling("the accept that binds the deal", happened=True):
            row = self.journal.deals.get(row_id) if row_id is not None else None
            if row is None or deal.accept_record is None:
                return
            meta = dict(row.terms)
            meta["accept_record"] = _record_meta(deal.accept_record)
            meta["accept_private"] = deal.accept_private
            self.journal.deals.update(row.id, terms=meta)

    def open_accepted(self, offer_id: str, role: str, record: TranscriptRecord) -> DealSession:
        """A deal on someone else's offer, journaled already by `journal_deal`."""
        row = self.journal.deals.get(self._rows[offer_id])
        return self._open(offer_id, role, record,
                          letter=row.terms.get("letter") if row is not None else None)

    def adopt_offer(self, offer_id: str, role: str, record: TranscriptRecord) -> None:
        """Our own offer seen back on the board: its signed record replaces the provisional."""
        row_id = self._rows[offer_id]
        row = self.journal.deals.get(row_id)
        meta = dict(row.terms) if row is not None else {}
        meta["offer_record"] = _record_meta(record)
        self.journal.deals.update(row_id, terms=meta)
        if offer_id in self._sessions:
            return
        self._open(offer_id, role, record)
        self._events.publish(Notice("info", f"offer {offer_id[:10]}… posted", deal_id=offer_id))

    def recover(self, record: TranscriptRecord, board: OffersBoard) -> DealSession | None:
        """Our own signed offer or accept on the board that the journal does not know.

        After the data directory is lost and the master seed restored into a fresh home, the
        identity is the same, so the board still holds our signed lines; every secret and
        payment key derives from the seed and the nonces those lines carry. A plan is installed
        only when what it derives is what the line committed to.
        """
        frame = try_decode_frame(record.line)
        if frame is None or frame.get("from") != record.sender:
            return None
        offer: Mapping[str, Any] | None
        offer_record: TranscriptRecord | None
        if frame["type"] == "offer":
            offer_id, offer, offer_record = frame["id"], frame, record
            role, nonce, key_offer = frame["role"], frame["nonce"], None
        elif frame["type"] == "accept":
            offer_id = frame["ref"]
            offer, offer_record = board.offer_frame(offer_id), board.offer_record(offer_id)
            if offer is None or offer_record is None:
                return None
            role = "payee" if offer["role"] == "payer" else "payer"
            nonce, key_offer = frame["nonce"], offer_id
        else:
            return None
        pending = {deal_id for deal_id, _role in self.pending_offers.values()}
        if offer_id in self._sessions or offer_id in self._rows or offer_id in pending:
            return None
        secret_plan = None
        if role == "payee":
            plan = SecretPlan(offer_id=offer_id, nonce=nonce, lock=offer["lock"])
            statement = frame.get("statement") if frame["type"] == "accept" else None
            if statement is None or self.keeper.mint(plan) == statement:
                secret_plan = plan
        key_plan = None
        if offer["lock"] == "point" and frame.get("paymentKey"):
            for account in (False, True):
                plan_k = PaymentKeyPlan(offer_id=key_offer, nonce=nonce, account=account)
                if self._derives(plan_k, frame["paymentKey"]):
                    key_plan = plan_k
                    break
        self.journal_deal(offer_id, role, offer_record, secret_plan, key_plan)
        deal = self._open(offer_id, role, offer_record)
        self._events.publish(Notice("info", f"deal {offer_id[:10]}… recovered from the board "
                                    "with the restored seed", deal_id=offer_id))
        return deal

    def _derives(self, plan: PaymentKeyPlan, key: str) -> bool:
        try:
            return self.keeper.payment_public_key(plan) == key
        except Exception:  # no EVM account in this profile: not that plan
            return False

    def sync_row(self, deal: DealSession) -> None:
        """Write what the fold says to the deal's journal row, when it changed."""
        row_id = self._rows.get(deal.deal_id)
        facts = (deal.state.status, deal.state.contract, deal.room)
        if row_id is not None and self._row_facts.get(deal.deal_id) != facts:
            self.journal.deals.update(row_id, status=facts[0], contract_id=facts[1], room=facts[2])
            self._row_facts[deal.deal_id] = facts
