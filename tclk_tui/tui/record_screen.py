"""One transcript record whole: the transcript's row and the detail under it end lines in an
ellipsis, this dialog shows everything the engine says about the record, wrapped and
scrollable, so nothing is ever cut without a way to read it."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Footer, Static

from tclk_tui.engine.arbitration.side_lines import SIDE_LINE_TYPES
from tclk_tui.engine.views import RecordView
from tclk_tui.engine.words import plain_words
from tclk_tui.tui.dialog import Dialog
from tclk_tui.tui.formatting import utc_stamp
from tclk_tui.tui.marks import PROBLEM
from tclk_tui.tui.safe import join, literal


def record_text(record: RecordView) -> Text:
    if not record.verified:
        verdict = Text("signature does NOT verify", style=PROBLEM)
    elif record.type in SIDE_LINE_TYPES:
        verdict = Text("signed; a referee's line beside the protocol, it moves no state")
    elif not record.ok:
        verdict = Text("signed, refused by the deal's rules", style=PROBLEM)
    else:
        verdict = Text("signed and accepted")
    lines = [
        join("room  ", literal(record.room)),
        join("seq   ", str(record.seq), "·", utc_stamp(record.ts_ms)),
        join("from  ", literal(record.sender), "(me)" if record.mine else ""),
        join("frame ", literal(record.type or "not a tclk/1 frame"), "·", verdict),
        join("reads ", literal(plain_words(record.summary))),
    ]
    if record.reason:
        lines.append(join("why   ", literal(plain_words(record.reason))))
    return Text("\n", end="").join(lines)


class RecordScreen(Dialog[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,enter", "close", "Close"),
    ]

    DEFAULT_CSS = """
    RecordScreen { align: center middle; }
    RecordScreen > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    RecordScreen VerticalScroll { height: auto; max-height: 20; }
    RecordScreen #record-whole { height: auto; }
    """

    def __init__(self, record: RecordView) -> None:
        super().__init__()
        self.record = record

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text.assemble(("Transcript record", "bold"), ("   esc closes", "dim")))
            with VerticalScroll():
                yield Static(record_text(self.record), id="record-whole")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
