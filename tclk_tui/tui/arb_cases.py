"""The referee's Cases list: deals whose offer names this wallet as arbiter or juror.

Every fact shown is the engine's (`wallet.referee`): the fold's status, whether our statement or
share point is on the board, whether the vault holds what we would release, the lock as the rail
reports it. Release goes through the gate modal, which re-asks the engine every second; withhold
is one key with no secret involved. The round view reads the deal room's signed vote records.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, DataTable, Input, Static

from tclk_tui.engine.gates import GateRequest
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.formatting import short_did
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.safe import literal

COLUMNS = ("offer", "I am", "status", "statement", "holds", "decision", "lock on rail")
NO_CASES = "No offer on the board names this wallet as arbiter or juror."


def _yes(flag: bool | None) -> str:
    return {True: "yes", False: "no", None: "-"}[flag]


def case_row(case: Any) -> tuple[Text, ...]:
    return tuple(literal(cell, max_len=40) for cell in (
        case.offer_id[:12] + "…", case.what, case.status,
        "published" if case.minted else ("not yet" if case.note else "-"),
        _yes(case.held), case.decision, _yes(case.lock_verified)))


def case_text(case: Any) -> Text:
    out = Text()
    out.append_text(literal(f"{case.amount_text}, {case.lock} lock; I hold {case.what}",
                            max_len=200))
    out.append("\npayer ")
    out.append_text(literal(short_did(case.payer) if case.payer else "-"))
    out.append("   payee ")
    out.append_text(literal(short_did(case.payee) if case.payee else "-"))
    out.append("\nlock: ")
    out.append_text(literal(case.lock_detail, max_len=200))
    if case.note:
        out.append("\n")
        out.append_text(literal(case.note, max_len=200, style="bold"))
    return out


def round_text(view: Any) -> Text:
    out = Text(f"round closes for commitments at {view.deadline_ms} ms; commit phase "
               f"{'closed' if view.commit_closed else 'open'}\n", style="bold")
    for juror in view.jurors:
        state = ("opened: " + str(juror.verdict) if juror.opened
                 else "committed" if juror.committed else "no commitment")
        out.append(f"juror {juror.index + 1} ")
        out.append_text(literal(short_did(juror.did)))
        out.append("  ")
        out.append_text(literal(state, max_len=80))
        for flag in juror.flags:
            out.append("  [")
            out.append_text(literal(flag, max_len=60, style="bold"))
            out.append("]")
        out.append("\n")
    counts = ", ".join(f"{v}: {n}" for v, n in view.counts.items())
    out.append("tally: ")
    out.append_text(literal(counts or "no opened votes yet", max_len=200))
    for problem in view.problems:
        out.append("\nproblem: ", style="bold")
        out.append_text(literal(problem, max_len=200))
    return out


class CasesForm(Vertical):
    DEFAULT_CSS = """
    CasesForm { height: 1fr; }
    CasesForm #cases-buttons, CasesForm #round-buttons { height: 1; }
    CasesForm CalmButton { margin-right: 1; }
    CasesForm #cases-table { height: 8; }
    CasesForm #case-detail { height: auto; max-height: 5; }
    CasesForm #round-verdict { width: 24; }
    CasesForm #round-scroll { height: 1fr; }
    """

    def __init__(self, referee: Any, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._referee = referee
        self.cases: list[Any] = []
        self.selected: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="cases-buttons"):
            yield CalmButton("Refresh", id="cases-refresh", compact=True)
            yield CalmButton("Mint statement", id="cases-mint", compact=True)
            yield CalmButton("Release…", id="cases-release", compact=True, variant="warning")
            yield CalmButton("Withhold", id="cases-withhold", compact=True)
        yield DataTable(id="cases-table", cursor_type="row", zebra_stripes=True)
        yield Static(Text(NO_CASES), id="case-detail")
        with Horizontal(id="round-buttons"):
            yield CalmInput(placeholder="verdict, e.g. release", id="round-verdict",
                            compact=True)
            yield CalmButton("Commit vote", id="round-commit", compact=True)
            yield CalmButton("Open vote", id="round-open", compact=True)
        with VerticalScroll(id="round-scroll"):
            yield Static(Text(""), id="round-text")

    def on_mount(self) -> None:
        table = self.query_one("#cases-table", DataTable)
        table.add_columns(*COLUMNS)
        self.show(self._safe(self._referee.cases) or [])

    def _safe(self, call, *args):
        try:
            return call(*args)
        except Exception as exc:
            self._say(exc)
            return None

    def _say(self, exc: BaseException | str) -> None:
        text = exc if isinstance(exc, str) else describe_error(exc)
        self.query_one("#case-detail", Static).update(
            Text.assemble(Text("refused: ", style="bold"), literal(text, max_len=300)))

    # -- the list -----------------------------------------------------------------------------

    def show(self, cases: list[Any]) -> None:
        self.cases = list(cases)
        table = self.query_one("#cases-table", DataTable)
        table.clear()
        for case in self.cases:
            table.add_row(*case_row(case), key=case.offer_id)
        ids = [c.offer_id for c in self.cases]
        if self.selected not in ids:
            self.selected = ids[0] if ids else None
        if self.selected is not None:
            table.move_cursor(row=ids.index(self.selected))
        self._show_selected()

    def _show_selected(self) -> None:
        detail = self.query_one("#case-detail", Static)
        rounds = self.query_one("#round-text", Static)
        case = next((c for c in self.cases if c.offer_id == self.selected), None)
        if case is None:
            detail.update(Text(NO_CASES))
            rounds.update(Text(""))
            return
        detail.update(case_text(case))
        if case.role == "juror" and case.contract:
            view = self._safe(self._referee.round_view, case.offer_id)
            rounds.update(round_text(view) if view is not None else Text(""))
        else:
            rounds.update(Text("vote rounds are for a committee's jurors" if case.role ==
                               "arbiter" else "the round opens once the offer is accepted",
                               style="dim"))

    @on(DataTable.RowHighlighted, "#cases-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is not None and event.row_key.value is not None:
            self.selected = str(event.row_key.value)
            self._show_selected()

    # -- actions --------------------------------------------------------------------------------

    @on(Button.Pressed, "#cases-refresh")
    def action_refresh(self) -> None:
        self._run("refresh")

    @on(Button.Pressed, "#cases-mint")
    def action_mint(self) -> None:
        if self.selected:
            self._run("mint", self.selected)

    @on(Button.Pressed, "#cases-withhold")
    def action_withhold(self) -> None:
        if self.selected and self._safe(self._referee.withhold, self.selected) is not None:
            self.show(self._safe(self._referee.cases) or [])

    @on(Button.Pressed, "#round-commit")
    def action_commit(self) -> None:
        verdict = self.query_one("#round-verdict", Input).value.strip()
        if not self.selected:
            return
        if not verdict:
            self._say("type a verdict first")
            return
        self._run("commit", self.selected, verdict)

    @on(Button.Pressed, "#round-open")
    def action_open_vote(self) -> None:
        if self.selected:
            self._run("open_vote", self.selected)

    @work(exclusive=True, group="cases")
    async def _run(self, name: str, *args: object) -> None:
        try:
            await getattr(self._referee, name)(*args)
            if name != "refresh":
                await self._referee.refresh()
        except Exception as exc:
            self._say(exc)
            return
        self.show(self._safe(self._referee.cases) or [])

    @on(Button.Pressed, "#cases-release")
    def action_release(self) -> None:
        if not self.selected:
            return
        offer_id = self.selected
        request = self._safe(self._referee.request_release, offer_id)
        if request is None:
            return

        async def perform(newest: GateRequest, typed: str | None, _late: bool) -> Any:
            return await self._referee.confirm_release(newest, typed or "")

        self.app.push_screen(GateScreen(request, perform,
                                        refresh=lambda: self._referee.request_release(offer_id)),
                             self._released)

    def _released(self, result: Any) -> None:
        self.show(self._safe(self._referee.cases) or [])
