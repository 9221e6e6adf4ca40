"""Why lines on the board were refused, counted by reason: the board is written by strangers."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Static

from tclk_tui.engine.words import plain_words, plural
from tclk_tui.tui.dialog import Dialog
from tclk_tui.tui.safe import literal


class RejectedScreen(Dialog[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="rejected.close"),
    ]

    DEFAULT_CSS = """
    RejectedScreen { align: center middle; }
    RejectedScreen > Vertical {
        width: 90%; max-width: 100; height: 80%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    RejectedScreen DataTable { height: 1fr; }
    RejectedScreen .hint { color: $text-muted; height: 1; }
    """

    def __init__(self, rejected: dict[str, int]) -> None:
        super().__init__()
        self.rejected = dict(rejected)

    def compose(self) -> ComposeResult:
        total = sum(self.rejected.values())
        with Vertical():
            yield Static(Text(f"Rejected board lines: {plural(total, 'line')} in "
                              f"{plural(len(self.rejected), 'reason')}", style="bold"))
            yield DataTable(id="rejected-table", cursor_type="row", zebra_stripes=False)
            yield Static(Text("These lines never became offers. Esc closes."), classes="hint")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(Text("count"), key="count")
        table.add_column(Text("reason"), key="reason")
        ordered = sorted(self.rejected.items(), key=lambda item: (-item[1], item[0]))
        for reason, count in ordered:
            table.add_row(Text(f"{count:,}", justify="right"),
                          literal(plain_words(reason), max_len=300))
        if not ordered:
            table.add_row(Text("0"), Text("nothing rejected so far"))
        table.focus()

    def action_close(self) -> None:
        self.dismiss(None)
