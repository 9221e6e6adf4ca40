"""The deal room: the wallet's deals, the one selected, and every action taken on a deal.

It owns the engine calls a deal action becomes: reading the deals and the selected deal's
view, stating a gated action's facts (`deal_request`, which the gate asks again while it is
open) and confirming them (`deal.confirm`), a heartbeat, a receipt, and the rail re-read of a
reconcile. An action that is not valid now is explained in the engine's own words.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from tclk_tui.engine.gates import GateRequest
from tclk_tui.engine.views import DealView, RecordView
from tclk_tui.tui.controllers.base import Controller, closing_quietly
from tclk_tui.tui.deal_room import ACTION_LABELS, GATED_ACTIONS
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.note_screen import HeartbeatScreen, ReceiptScreen
from tclk_tui.tui.record_screen import RecordScreen
from tclk_tui.tui.safe import clean


class DealsController(Controller):
    """The deal room pane's reads and the deal actions taken from it (or the palette)."""

    # -- reads --------------------------------------------------------------------------------

    def refresh_deals(self, *, select: str | None = None) -> None:
        views = self.wallet.deals()
        room = self.app.deal_room
        room.show_deals(views, selected=select)
        self.show_selected_deal()

    def show_selected_deal(self) -> None:
        room = self.app.deal_room
        deal_id = room.selected_deal()
        if deal_id is None:
            room.show_deal(None)
            return
        try:
            view = self.wallet.deal(deal_id).view()
        except Exception as exc:
            self.report("cannot read deal", exc)
            return
        room.show_deal(view)
        if self.agents is not None:
            calls = self.agents.ledger.calls(deal_id=view.deal_id, limit=20)
            room.show_agents([(c.agent, c.tool, c.decision, c.transport)
                              for c in reversed(calls)])

    def open_deal(self, deal_id: str) -> None:
        self.refresh_deals(select=deal_id)
        self.app.deal_room.select_deal(deal_id)
        self.show_selected_deal()
        self.app.action_show_pane("deals")

    def deal_selected(self) -> None:
        with closing_quietly():
            self.show_selected_deal()

    def show_record(self, record: RecordView) -> None:
        self.open_dialog(RecordScreen(record))

    # -- actions ------------------------------------------------------------------------------

    def run_deal_action(self, action: str, deal_id: str) -> None:
        wallet = self.wallet
        if action == "accept":
            row = wallet.board.get(deal_id)
            if row is None:
                self.say("that offer is not on the board", "warning")
            else:
                self.app.board.open_accept(row)
            return
        try:
            deal = wallet.deal(deal_id)
            if action == "heartbeat":
                self.open_dialog(HeartbeatScreen(deal.heartbeat), self.deal_result)
                return
            if action == "receipt":
                self.open_dialog(ReceiptScreen(deal.view().status, deal.receipt),
                                 self.deal_result)
                return
            if action == "reconcile":
                self.reconcile(deal_id)
                return
            ask = self.deal_request(deal, action)
            if ask is None:
                return
            request = ask()
        except Exception as exc:
            self.report(action, exc)
            return

        async def perform(newest: GateRequest, typed: str | None, acknowledge: bool) -> DealView:
            return await deal.confirm(newest, typed_code=typed, acknowledge_late=acknowledge)

        self.open_dialog(GateScreen(request, perform, refresh=ask), self.deal_result)

    def explain_not_valid(self, action: str, view: DealView) -> None:
        """A deal key pressed when its action is not valid now: say why in the engine's words
        (the view's `unavailable`, or a gated action's blockers), never nothing."""
        label = ACTION_LABELS.get(action, clean(action, max_len=20))
        reason = dict(view.unavailable).get(action)
        if reason is None and action in GATED_ACTIONS:
            try:
                ask = self.deal_request(self.wallet.deal(view.deal_id), action)
                request = ask() if ask is not None else None
            except Exception as exc:
                reason = describe_error(exc)
            else:
                if request is not None and request.blockers:
                    reason = "; ".join(request.blockers)
        if reason is None:
            reason = f"the deal is {view.status}"
        self.say(f"{label} is not possible now: {clean(reason, max_len=300)}", "warning")

    def deal_request(self, deal: Any, action: str) -> Callable[[], GateRequest] | None:
        """The engine call that states this action's facts; the gate asks it again while open."""
        if action == "lock":
            view = self.app.deal_room.view
            rail = view.rail if view is not None and view.deal_id == deal.deal_id else None
            return partial(deal.request_lock, rail)
        if action == "reveal":
            return deal.request_reveal
        if action == "refund":
            return deal.request_refund
        if action == "cancel":
            return deal.request_cancel
        self.say(f"unknown action {clean(action, max_len=20)}", "error")
        return None

    def deal_result(self, view: DealView | None) -> None:
        if isinstance(view, DealView):
            self.refresh_deals(select=view.deal_id)
            self.app.deal_room.show_deal(view)

    def reconcile(self, deal_id: str) -> None:
        """Re-read the rail in the app's worker group "reconcile" (several may run at once)."""
        self.run_worker(partial(self._reconcile, deal_id), name="_reconcile",
                        group="reconcile")

    async def _reconcile(self, deal_id: str) -> None:
        """Re-read the rail and re-fold a deal whose rail and transcript disagree."""
        try:
            view = await self.wallet.deal(deal_id).reconcile()
        except Exception as exc:
            self.report("reconcile", exc)
            return
        self.say("rail re-read: " + (clean(view.disagreement, max_len=200) or
                                     f"rail and transcript agree ({view.status})"))
        self.deal_result(view)
