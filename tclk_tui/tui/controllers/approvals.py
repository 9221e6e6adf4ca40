"""The agents' approvals: the calls agents made under `ask` that wait for the operator.

It owns the agents' desk calls (`pending`, `refresh`, `approve`, `deny`) and the gate an
approval goes through: approving states the same facts as the operator's own action would
(the registry's request for the agent's call, `door.state`), behind the same `GateScreen`. While
anything is pending, every tick lapses what the engine no longer states as the agent saw it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from tclk_tui.engine.gates import GateRefused, GateRequest
from tclk_tui.tui.approvals_pane import ApprovalsPane
from tclk_tui.tui.controllers.base import Controller, closing_quietly
from tclk_tui.tui.deny_screen import DenyScreen
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.header_bar import HeaderBar
from tclk_tui.tui.safe import clean


class ApprovalsController(Controller):
    """The approvals pane, when the wallet serves agents."""

    def refresh_approvals(self) -> None:
        if self.agents is None:
            return
        with closing_quietly():
            pending = self.agents.pending()
            self.app.query_one(HeaderBar).show_approvals(len(pending))
            self.app.query_one(ApprovalsPane).show(pending)

    def lapse_approvals(self) -> None:
        """Lapse in the app's worker group "approvals-lapse": a new tick's replaces the last."""
        self.run_worker(self._lapse_approvals, name="_lapse_approvals",
                        group="approvals-lapse", exclusive=True)

    async def _lapse_approvals(self) -> None:
        """Lapse what the engine no longer states as the agent saw it; redraw the count."""
        if self.agents.pending():
            try:
                await self.agents.refresh()
            except Exception as exc:
                self.report("approvals", exc)
        self.refresh_approvals()

    def approve(self, approval_id: str) -> None:
        row = self.agents.approval(approval_id)
        if row is None or row.state != "pending":
            self.refresh_approvals()
            return
        try:
            # The agent's own call, as the registry states it: a lock on the rail it asked.
            params = ({"deal": row.deal_id, "rail": row.params.get("rail")}
                      if row.tool == "lock" else self.app.deals.gate_params(row.tool,
                                                                            row.deal_id))
            if params is None:
                return
            ask = partial(self.door.state, row.tool, params)
            request = ask()
        except Exception as exc:
            self.report("approve", exc)
            return
        desk = self.agents

        async def perform(newest: GateRequest, typed: str | None, acknowledge: bool) -> Any:
            from tclk_tui.agents.desk import ApprovalError

            try:
                decided = await desk.approve(row.id, typed, acknowledge_late=acknowledge)
            except ApprovalError as exc:
                raise GateRefused(exc.reason) from None
            if decided.state != "approved":
                raise GateRefused(decided.reason or decided.state)
            return decided

        self.open_dialog(GateScreen(request, perform, refresh=ask), self._approval_done)

    def _approval_done(self, decided: Any) -> None:
        self.refresh_approvals()
        if decided is not None:
            self.say(f"approved: {clean(decided.agent, max_len=30)}'s {decided.tool}")
            if decided.deal_id:
                self.app.deals.refresh_deals(select=decided.deal_id)

    def deny(self, approval_id: str) -> None:
        row = self.agents.approval(approval_id)
        if row is None or row.state != "pending":
            self.refresh_approvals()
            return

        def denied(reason: str | None) -> None:
            if reason is None:
                return
            try:
                self.agents.deny(row.id, reason)
            except Exception as exc:
                self.report("deny", exc)
            self.refresh_approvals()

        self.open_dialog(DenyScreen(row.agent, row.tool), denied)
