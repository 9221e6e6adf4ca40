"""Tally a commit-reveal round read from a deal room (the registry's `tally`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Static

from tclk_tui.engine.door import Door
from tclk_tui.engine.words import plural
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.formatting import short_did
from tclk_tui.tui.marks import PROBLEM
from tclk_tui.tui.safe import literal


class TallyLike(Protocol):
    """What the `tally` command answers (`engine.arbitration.desk.Tally`), as this form reads it."""

    @property
    def commits(self) -> Mapping[str, str]: ...

    @property
    def reveals(self) -> Mapping[str, str]: ...

    @property
    def counts(self) -> Mapping[str, int]: ...

    @property
    def problems(self) -> Sequence[str]: ...

def tally_text(tally: TallyLike) -> Text:
    commits, reveals = dict(tally.commits), dict(tally.reveals)
    out = Text(f"{plural(len(commits), 'commitment')}, "
               f"{plural(len(reveals), 'opened reveal')}\n", style="bold")
    counts = sorted(dict(tally.counts).items(), key=lambda item: (-item[1], item[0]))
    for verdict, count in counts:
        out.append(f"{count:>4}  ")
        out.append_text(literal(verdict, max_len=60))
        out.append("\n")
    if not counts:
        out.append("   no verdict opened yet\n")
    pending = [juror for juror in commits if juror not in reveals]
    if pending:
        out.append(f"not revealed yet: {', '.join(short_did(j) for j in pending)}\n")
    for problem in tally.problems:
        out.append("problem: ", style=PROBLEM)
        out.append_text(literal(problem, max_len=200))
        out.append("\n")
    return out


class TallyForm(Vertical):
    DEFAULT_CSS = """
    TallyForm { height: 1fr; }
    TallyForm .arb-row { height: 1; }
    TallyForm .arb-label { width: 12; }
    TallyForm .arb-row > Input { width: 1fr; }
    TallyForm #tally-result { height: 1fr; }
    """

    def __init__(self, door: Door, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._door = door
        self.tally: TallyLike | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(classes="arb-row"):
            yield Static(Text("contract"), classes="arb-label")
            yield CalmInput(placeholder="0x contract id (its deal room is read)",
                            id="tally-contract", compact=True)
        with Horizontal(classes="arb-row"):
            yield Static(Text("jurors"), classes="arb-label")
            yield CalmInput(placeholder="the panel's did:key ids, separated by spaces or "
                            "commas (only they are counted)", id="tally-jurors", compact=True)
        yield CalmButton("Tally", id="tally-go", compact=True)
        with VerticalScroll(id="tally-result"):
            yield Static(Text(""), id="tally-text")

    @on(Button.Pressed, "#tally-go")
    @on(Input.Submitted)
    def start(self) -> None:
        contract = self.query_one("#tally-contract", Input).value.strip()
        jurors = self.query_one("#tally-jurors", Input).value.replace(",", " ").split()
        self.query_one("#tally-text", Static).update(Text("reading the deal room..."))
        self._run(contract, jurors)

    @work(exclusive=True, group="tally")
    async def _run(self, contract: str, jurors: list[str]) -> None:
        out = self.query_one("#tally-text", Static)
        try:
            tally = await self._door.run("tally", {"contract": contract, "jurors": jurors})
        except Exception as exc:
            self.tally = None
            out.update(Text.assemble(Text("cannot tally: ", style=PROBLEM),
                                     literal(describe_error(exc))))
            return
        self.tally = tally
        out.update(tally_text(tally))
