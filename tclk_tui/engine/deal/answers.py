"""What a deal says now: which actions are legal (the frame each would post, dry-run through the
state machine, with the rail's word on top) and the whole `DealView` the faces draw.
"""

from __future__ import annotations

from dataclasses import dataclass

from tclk_tui.engine.deal.rail import DealRail
from tclk_tui.engine.legal import DEAL_ACTIONS, Legal, Prospect, in_play, judge, prospect
from tclk_tui.engine.views import DealView, TimelineEntry
from tclk_tui.protocol.adaptor import PreSignature
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.machine import MOVES_TO
from tclk_tui.rails.base import SettlementRail

UNKNOWN = "unknown"
"""A deal's shown status when its rail and its transcript disagree (see `disagreement`)."""


@dataclass
class DealAnswers(DealRail):
    """The one table of legal actions and the deal view, from the fold and the rail below."""

    def _prospect(self, action: str, *, rail: str | None = None, note: str | None = None,
                  secret: str | None = None, ref: str | None = None,
                  presig: PreSignature | None = None) -> Prospect:
        """The frame this wallet would post for `action` now (see engine.legal)."""
        if action == "lock" and rail is None:
            rail = self._default_rail()
        if action == "reveal" and secret is None:
            secret = self.ctx.secrets.deal_secret(self.deal_id)
        built = prospect(action, self.state, did=self.ctx.did, deal_id=self.deal_id, rail=rail,
                         secret=secret, note=note, ref=ref)
        if presig is not None:
            built.frame["presig"] = dict(presig)
        return built

    def can(self, action: str, *, rail: str | None = None) -> Legal:
        """Whether `action` is legal now: the frame it would post, dry-run through
        `apply_frame` (the rule every record read from the venue is judged by)."""
        if action not in DEAL_ACTIONS:
            return Legal(False, f"{action} is not a deal action")
        try:
            built = self._prospect(action, rail=rail)
        except TclkError as exc:
            return Legal(False, str(exc).removeprefix("tclk: "))
        return judge(self.state, built, self.ctx.now_ms())

    def legal_actions(self) -> dict[str, Legal]:
        """Every deal action with the engine's answer: the one table the faces read.

        The transcript's rule, with the rail's word on top: money the rail holds for this
        contract can come back at the window whatever the fold says, and a deal whose rail and
        transcript disagree can be reconciled (and not receipted) until they agree."""
        answers = {action: self.can(action) for action in DEAL_ACTIONS}
        if self._rail_refund_open():
            answers["refund"] = Legal(True)
        if self.disagreement() is not None:
            answers["reconcile"] = Legal(True)
            if answers["receipt"].ok:
                answers["receipt"] = Legal(False, "the rail and the transcript disagree: "
                                           "reconcile first")
        if answers["receipt"].ok and self.receipted():
            answers["receipt"] = Legal(False, "this deal's receipt is already posted")
        return answers

    def actions(self) -> frozenset[str]:
        return frozenset(a for a, legal in self.legal_actions().items() if legal.ok)

    def view(self) -> DealView:
        state = self.state
        shown = self.money(state.rail)
        records = [self._record_view(index, record, step, shown.text) for index, (record, step)
                   in enumerate(zip(self._records(), self._steps, strict=False))]
        timeline = []
        for record, step in zip(self._records(), self._steps, strict=False):
            status = MOVES_TO.get(step.type or "")  # the status this step moved the deal to
            if step.ok and status is not None:
                timeline.append(TimelineEntry(status=status, ts_ms=record.timestamp_ms,
                                              by=record.sender))
        rail = self.ctx.rails.get(state.rail or "")
        note = ""
        for record, step in reversed(list(zip(self._records(), self._steps, strict=False))):
            # Only a heartbeat the fold accepted (so from a party) and not our own.
            if step.ok and step.type == "heartbeat" and record.sender != self.ctx.did:
                frame = try_decode_frame(record.line)
                note = frame.get("note", "") if frame and frame["type"] == "heartbeat" else ""
                break
        answers = self.legal_actions()
        disagreement = self.disagreement()
        return DealView(
            deal_id=self.deal_id, contract=state.contract,
            role="observer" if self.observer else self.role,
            status=UNKNOWN if disagreement else state.status,
            transcript_status=state.status, disagreement=disagreement or "",
            amount=self.offer["amount"], asset=self.offer["asset"],
            lock=self.offer["lock"], rail=state.rail, rail_ref=state.rail_ref,
            rails=tuple(self.offer["rails"]), counterparty=self.counterparty(),
            room=self.room,
            deadlines=self.deadlines(),
            actions=frozenset(a for a, legal in answers.items() if legal.ok),
            unavailable=tuple((a, legal.reason or "") for a, legal in answers.items()
                              if not legal.ok and in_play(state, a) and not self.observer),
            records=tuple(records), timeline=tuple(timeline),
            secret_held=self.ctx.secrets.deal_secret(self.deal_id) is not None,
            rail_moves_value=bool(rail.moves_value) if rail is not None else False,
            note=note, rail_status=self.rail_check.status if self.rail_check else self.rail_status,
            rail_disagrees=self.rail_disagrees(),
            lock_facts=self.lock_check.facts if self.lock_check is not None else (),
            rail_account=_account_text(rail),
            money_text=shown.text, money_minimal=shown.minimal,
            accepted_by=self.accepted_by(), refused_accepts=tuple(self.refused_accepts()),
            fee_wait=self._fee_wait_text())

    def _fee_wait_text(self) -> str:
        texts = []
        for _rail_id, wait in self.fee_waits():
            text = wait.text
            desk = getattr(self.ctx, "fee_waits", None)
            if not wait.held or (desk is not None and desk.one_shot):
                text += ("; journaled: it goes on while the daemon or the app runs (`tclk-tui "
                         f"cancel-wait {self.deal_id[:12]}` drops it)")
            texts.append(text)
        return "; ".join(texts)


def _account_text(rail: SettlementRail | None) -> str:
    return rail.account_text() if rail is not None else ""
