"""The operator's approvals: what agents asked for under an `ask` policy, waiting for a yes or no.

Each row is one journaled approval (agent, tool, deal); the detail shows the gate's facts as the
engine stated them when the agent asked, and the caps the agent had used so far. Approving opens
the same confirm modal as the operator's own actions (a reveal still needs its code); denying
asks for a reason, which the agent receives. Everything an agent wrote is drawn literally.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from tclk_tui.tui.formatting import utc_time
from tclk_tui.tui.safe import literal

NO_APPROVALS = "No approvals pending. An agent's gated call under an `ask` policy waits here."
MARKS = {True: "ok ", False: "NO ", None: " · "}


def approval_detail(row) -> Text:
    """One approval's facts, caps and parameters, every agent-written value literal."""
    facts = row.facts if isinstance(row.facts, dict) else {}
    out = Text.assemble(("agent ", "bold"), literal(row.agent, max_len=40),
                        ("  asks to ", "bold"), literal(row.tool, max_len=20),
                        ("  deal ", "bold"), literal(row.deal_id or "-", max_len=40), "\n")
    for fact in facts.get("facts", [])[:12]:
        if not isinstance(fact, dict):
            continue
        out.append(MARKS.get(fact.get("ok"), " · "), style="bold")
        out.append_text(literal(fact.get("label", ""), max_len=60, style="bold"))
        out.append(": ")
        out.append_text(literal(fact.get("detail", ""), max_len=200))
        out.append("\n")
    used = facts.get("caps_used", {})
    if isinstance(used, dict) and used:
        out.append("caps used: ", style="bold")
        out.append_text(literal(", ".join(f"{k} {v}" for k, v in sorted(used.items())),
                                max_len=300))
        out.append("\n")
    params = {k: v for k, v in row.params.items() if k != "deal"}
    if params:
        out.append("parameters: ", style="bold")
        out.append_text(literal(", ".join(f"{k}={v}" for k, v in sorted(params.items())),
                                max_len=300))
    return out


class ApprovalsPane(Vertical):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve", id="approvals.approve"),
        Binding("d", "deny", "Deny", id="approvals.deny"),
    ]

    DEFAULT_CSS = """
    ApprovalsPane { height: 1fr; }
    ApprovalsPane #approvals-table { height: 1fr; min-height: 4; }
    ApprovalsPane #approval-detail { height: auto; max-height: 18; padding: 0 1;
                                     border-top: solid $panel; }
    """

    class ApproveRequested(Message):
        def __init__(self, approval_id: str) -> None:
            super().__init__()
            self.approval_id = approval_id

    class DenyRequested(Message):
        def __init__(self, approval_id: str) -> None:
            super().__init__()
            self.approval_id = approval_id

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list = []

    def compose(self) -> ComposeResult:
        table: DataTable = DataTable(id="approvals-table", cursor_type="row", zebra_stripes=True)
        table.add_columns("asked (UTC)", "agent", "tool", "deal", "id")
        yield table
        yield Static(Text(NO_APPROVALS), id="approval-detail")

    def show(self, rows: list) -> None:
        """Redraw from the journal's pending approvals (oldest first)."""
        if [r.id for r in rows] == [r.id for r in self.rows]:
            return
        table = self.query_one(DataTable)
        keep = self.selected()
        self.rows = list(rows)
        table.clear()
        for row in rows:
            table.add_row(utc_time(row.created_ms), literal(row.agent, max_len=20),
                          literal(row.tool, max_len=10), literal(row.deal_id or "-", max_len=14),
                          row.id, key=row.id)
        ids = [r.id for r in rows]
        if keep in ids:
            table.move_cursor(row=ids.index(keep))
        self._show_detail()
        self.refresh_bindings()

    def selected(self) -> str | None:
        if not self.rows:
            return None
        table = self.query_one(DataTable)
        index = min(max(table.cursor_row, 0), len(self.rows) - 1)
        return self.rows[index].id

    def _show_detail(self) -> None:
        detail = self.query_one("#approval-detail", Static)
        chosen = self.selected()
        row = next((r for r in self.rows if r.id == chosen), None)
        detail.update(approval_detail(row) if row is not None else Text(NO_APPROVALS))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("approve", "deny"):
            return bool(self.rows)
        return True

    def action_approve(self) -> None:
        chosen = self.selected()
        if chosen is not None:
            self.post_message(self.ApproveRequested(chosen))

    def action_deny(self) -> None:
        chosen = self.selected()
        if chosen is not None:
            self.post_message(self.DenyRequested(chosen))
