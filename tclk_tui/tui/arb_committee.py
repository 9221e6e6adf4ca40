"""The payee's view of a committee: which jurors' shares arrived sealed, which are missing.

The engine checks each share against the juror's published share point as it arrives and
combines them once all are in; this pane only shows its answer: the door's read-only overview
on screen, and the registry's `committee` (which reads the sealed mail first) on Check mail.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Button, Static

from tclk_tui.engine.door import Door
from tclk_tui.engine.words import plural
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.formatting import short_did
from tclk_tui.tui.marks import PROBLEM
from tclk_tui.tui.safe import literal

NO_COMMITTEE = "No deal of yours as payee names a committee."


def progress_text(items: list[dict]) -> Text:
    if not items:
        return Text(NO_COMMITTEE)
    out = Text()
    for item in items:
        jurors = item["jurors"]
        out.append_text(literal(f"deal {item['deal'][:12]}… ({item['status']}): "
                                f"{len(item['have'])} of {plural(len(jurors), 'share')} in",
                                style="bold"))
        if item["opened"]:
            out.append("  combined: the secret opens the statement; reveal from the deal room")
        elif item["missing"]:
            out.append("\n  missing: ")
            out.append_text(literal(", ".join(short_did(d) for d in item["missing"])))
        if item["problem"]:
            out.append("\n  problem: ", style=PROBLEM)
            out.append_text(literal(item["problem"], max_len=200))
        out.append("\n")
    return out


class CommitteeForm(Vertical):
    DEFAULT_CSS = """
    CommitteeForm { height: 1fr; }
    CommitteeForm #committee-scroll { height: 1fr; }
    """

    def __init__(self, door: Door, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._door = door
        self.items: list[dict] = []

    def compose(self) -> ComposeResult:
        yield CalmButton("Check mail", id="committee-check", compact=True)
        with VerticalScroll(id="committee-scroll"):
            yield Static(Text(NO_COMMITTEE), id="committee-text")

    def on_mount(self) -> None:
        self._show()

    def _show(self, items: list[dict] | None = None) -> None:
        """`items` as the `committee` command answered them, else the overview read now."""
        out = self.query_one("#committee-text", Static)
        try:
            self.items = items if items is not None else self._door.committee_overview()
        except Exception as exc:
            out.update(Text.assemble(Text("cannot read: ", style=PROBLEM),
                                     literal(describe_error(exc))))
            return
        out.update(progress_text(self.items))

    @on(Button.Pressed, "#committee-check")
    def action_check(self) -> None:
        self._check()

    @work(exclusive=True, group="committee")
    async def _check(self) -> None:
        try:
            answer = await self._door.run("committee")
        except Exception as exc:
            self.query_one("#committee-text", Static).update(
                Text.assemble(Text("cannot read the mailbox: ", style=PROBLEM),
                              literal(describe_error(exc))))
            return
        self._show(list(answer["deals"]))
