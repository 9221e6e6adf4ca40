"""The deal room: the wallet's deals, the one selected, and every action taken on a deal.

It owns the registry commands a deal action becomes: reading the deals and the selected deal's
view, stating a gated action's request (`door.state` with `gate_params`, which the gate asks
again while it is open) and confirming it (the command with its confirm param, `door.perform`),
a heartbeat, a receipt, and the rail re-read of a reconcile. An action that is not valid now is
explained in the engine's own words.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from tclk_tui.engine.door import perform
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
        views = self.door.deals()
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
            view = self.door.deal_view(deal_id)
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
        door = self.door
        if action == "accept":
            row = door.board.get(deal_id)
            if row is None:
                self.say("that offer is not on the board", "warning")
            else:
                self.app.board.open_accept(row)
            return
        try:
            view = door.deal_view(deal_id)  # an unknown deal is refused here, at once
            deal_id = view.deal_id
            if action == "heartbeat":
                self.open_dialog(HeartbeatScreen(partial(self._heartbeat, deal_id)),
                                 self.deal_result)
                return
            if action == "receipt":
                self.open_dialog(ReceiptScreen(view.status, partial(self._receipt, deal_id)),
                                 self.deal_result)
                return
            if action == "reconcile":
                self.reconcile(deal_id)
                return
            params = self.gate_params(action, deal_id)
            if params is None:
                return
            request = door.state(action, params)
        except Exception as exc:
            self.report(action, exc)
            return

        async def confirm(newest: GateRequest, typed: str | None, acknowledge: bool) -> Any:
            return await perform(door, action, params, typed, acknowledge)

        self.open_dialog(GateScreen(request, confirm, refresh=partial(door.state, action,
                                                                      params)),
                         self.deal_result)

    async def _heartbeat(self, deal_id: str, note: str | None) -> DealView:
        view: DealView = await self.door.run("heartbeat", {"deal": deal_id, "note": note})
        return view

    async def _receipt(self, deal_id: str) -> DealView:
        view: DealView = await self.door.run("receipt", {"deal": deal_id})
        return view

    def explain_not_valid(self, action: str, view: DealView) -> None:
        """A deal key pressed when its action is not valid now: say why in the engine's words
        (the view's `unavailable`, or a gated action's blockers), never nothing."""
        label = ACTION_LABELS.get(action, clean(action, max_len=20))
        reason = dict(view.unavailable).get(action)
        if reason is None and action in GATED_ACTIONS:
            try:
                params = self.gate_params(action, view.deal_id)
                request = self.door.state(action, params) if params is not None else None
            except Exception as exc:
                reason = describe_error(exc)
            else:
                if request is not None and request.blockers:
                    reason = "; ".join(request.blockers)
        if reason is None:
            reason = f"the deal is {view.status}"
        self.say(f"{label} is not possible now: {clean(reason, max_len=300)}", "warning")

    def gate_params(self, action: str, deal_id: str) -> dict[str, Any] | None:
        """The params of the gated command `action` on this deal (a lock on the rail the deal
        room shows for it), which the gate states again while it is open; None for an action
        that is no gated deal action."""
        if action == "lock":
            view = self.app.deal_room.view
            rail = view.rail if view is not None and view.deal_id == deal_id else None
            return {"deal": deal_id, "rail": rail}
        if action in GATED_ACTIONS:
            return {"deal": deal_id}
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
            view = await self.door.run("reconcile", {"deal": deal_id})
        except Exception as exc:
            self.report("reconcile", exc)
            return
        self.say("rail re-read: " + (clean(view.disagreement, max_len=200) or
                                     f"rail and transcript agree ({view.status})"))
        self.deal_result(view)
