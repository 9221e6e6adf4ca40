"""The referee's Cases list: deals whose offer names this wallet as arbiter or juror.

Every fact shown is the engine's, read through the door (`door.cases()`, `door.round_view`, and
the registry's `cases` to read the venue again): the fold's status, whether our statement or
share point is on the board, whether the vault holds what we would release, the lock as the rail
reports it. The list reads the venue again by itself every `REFRESH_S` while it is on screen, so
a case's fold or lock changing shows without a key.

Every act is a key (listed in the footer and in `?`) that opens the gate modal with the request
the registry states (`door.state`); confirming runs the registry's command (`mint`, `release`,
`withhold`, `vote`), which states and re-checks it again in the engine. The acts: mint, release
and withhold (these two with the contract's code, since neither can be taken back), commit a
vote (the verdict typed in the field below the case; Enter there opens its gate) and open it.
The round view reads the deal room's signed vote records.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Input, Static

from tclk_tui.engine.door import Door
from tclk_tui.tui.arb_gate import open_gate
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.formatting import short_did
from tclk_tui.tui.marks import PROBLEM
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
            out.append_text(literal(flag, max_len=60, style=PROBLEM))
            out.append("]")
        out.append("\n")
    counts = ", ".join(f"{v}: {n}" for v, n in view.counts.items())
    out.append("tally: ")
    out.append_text(literal(counts or "no opened votes yet", max_len=200))
    for problem in view.problems:
        out.append("\nproblem: ", style=PROBLEM)
        out.append_text(literal(problem, max_len=200))
    return out


class CasesForm(Vertical):
    REFRESH_S = 10.0

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "refresh", "Refresh", id="cases.refresh"),
        Binding("m", "mint", "Mint…", id="cases.mint"),
        Binding("r", "release", "Release…", id="cases.release"),
        Binding("w", "withhold", "Withhold…", id="cases.withhold"),
        Binding("c", "commit", "Commit vote…", id="cases.commit"),
        Binding("o", "open_vote", "Open vote…", id="cases.open"),
    ]

    DEFAULT_CSS = """
    CasesForm { height: 1fr; }
    CasesForm #round-row { height: 1; }
    CasesForm #round-label { width: 9; }
    CasesForm #cases-table { height: 8; }
    CasesForm #case-detail { height: auto; max-height: 5; }
    CasesForm #round-verdict { width: 1fr; }
    CasesForm #round-scroll { height: 1fr; }
    """

    def __init__(self, door: Door, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._door = door
        self.cases: list[Any] = []
        self.selected: str | None = None

    def compose(self) -> ComposeResult:
        yield DataTable(id="cases-table", cursor_type="row", zebra_stripes=True)
        yield Static(Text(NO_CASES), id="case-detail")
        with Horizontal(id="round-row"):
            yield Static(Text("verdict"), id="round-label")
            yield CalmInput(placeholder="to commit, e.g. release; enter opens its dialog",
                            id="round-verdict", compact=True)
        with VerticalScroll(id="round-scroll"):
            yield Static(Text(""), id="round-text")

    def on_mount(self) -> None:
        table = self.query_one("#cases-table", DataTable)
        table.add_columns(*COLUMNS)
        self.show(self._safe(self._door.cases) or [])
        self.set_interval(self.REFRESH_S, self._refresh_if_shown)

    def _safe(self, call: Callable[..., Any], *args: Any) -> Any:
        try:
            return call(*args)
        except Exception as exc:
            self._say(exc)
            return None

    def _say(self, exc: BaseException | str) -> None:
        text = exc if isinstance(exc, str) else describe_error(exc)
        self.query_one("#case-detail", Static).update(
            Text.assemble(Text("refused: ", style=PROBLEM), literal(text, max_len=300)))

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
        self.refresh_bindings()

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
            view = self._safe(self._door.round_view, case.offer_id)
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

    def _refresh_if_shown(self) -> None:
        """Read again by itself, only while the list is what the operator looks at."""
        if self.is_on_screen and self.screen is self.app.screen:
            self._refresh(quiet=True)

    @work(exclusive=True, group="cases-refresh")
    async def _refresh(self, quiet: bool = False) -> None:
        try:
            cases = await self._door.run("cases")
        except Exception as exc:
            self._say(exc)
            return
        if not quiet or list(cases) != self.cases:
            self.show(cases)

    # -- acts: each a key, each through its gate ----------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A case's keys are dimmed while no case is selected."""
        if action in ("mint", "release", "withhold", "commit", "open_vote"):
            return True if self.selected else None
        return True

    def action_refresh(self) -> None:
        self._refresh()

    def action_mint(self) -> None:
        self._gate("mint")

    def action_release(self) -> None:
        self._gate("release")

    def action_withhold(self) -> None:
        self._gate("withhold")

    @on(Input.Submitted, "#round-verdict")
    def action_commit(self) -> None:
        field = self.query_one("#round-verdict", Input)
        verdict = field.value.strip()
        if not verdict:
            self.screen.set_focus(field)
            self._say("type the verdict to commit, then enter")
            return
        self._gate("vote", verdict=verdict)

    def action_open_vote(self) -> None:
        self._gate("vote", open=True)

    def _gate(self, name: str, **params: Any) -> None:
        """The registry's request for the selected case, in the gate modal (asked again every
        second while it is open, since a case's facts move with time); the confirmation runs
        the command, which the engine re-checks."""
        if not self.selected:
            return
        case = {"offer": self.selected, **params}
        self._safe(lambda: open_gate(self, self._door, name, case, self._done, follow=True))

    def _done(self, result: Any) -> None:
        self.show(self._safe(self._door.cases) or [])
