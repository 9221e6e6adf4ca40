"""Deny an agent's request, with a reason the agent receives as its answer."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Footer, Input, Static

from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.deliberate import DeliberateKeys
from tclk_tui.tui.dialog import Dialog
from tclk_tui.tui.safe import literal


class DenyScreen(DeliberateKeys, Dialog[str | None]):
    """Dismisses with the reason typed (possibly empty), or None when the operator backs out."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back out", id="deny.cancel"),
    ]

    DEFAULT_CSS = """
    DenyScreen { align: center middle; }
    DenyScreen > Vertical {
        width: 80%; max-width: 80; height: auto;
        border: round $error; background: $surface; padding: 0 1;
    }
    DenyScreen #deny-buttons { height: auto; align-horizontal: right; }
    DenyScreen Button { margin-left: 2; }
    """

    def __init__(self, agent: str, tool: str) -> None:
        super().__init__()
        self._about = Text.assemble(("Deny ", "bold"), literal(agent, max_len=40),
                                    ("'s ", "bold"), literal(tool, max_len=20))

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._about)
            yield Static(Text("The reason is sent to the agent as the answer to its call."))
            yield CalmInput(placeholder="reason", id="deny-reason", max_length=300, compact=True)
            with Horizontal(id="deny-buttons"):
                yield CalmButton("Back out", id="deny-cancel", compact=True)
                yield CalmButton("Deny", id="deny-send", variant="error", compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#deny-reason", Input).focus()

    @on(Button.Pressed, "#deny-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#deny-send")
    @on(Input.Submitted, "#deny-reason")
    def _deny(self) -> None:
        self.dismiss(self.query_one("#deny-reason", Input).value.strip())
