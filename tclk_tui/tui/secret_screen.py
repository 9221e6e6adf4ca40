"""A secret on screen, once, because the operator asked and confirmed.

The value is drawn without selection (so screen copy cannot pick it up), the app refuses any
clipboard copy while this screen is open, and the value is dropped when the screen closes.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.safe import literal


class SecretValue(Static):
    ALLOW_SELECT = False


class SecretScreen(ModalScreen[None]):
    HOLDS_SECRET = True
    ALLOW_SELECT = False

    BINDINGS: list[BindingType] = [  # noqa: RUF012
        Binding("escape", "close", "Close"),
    ]

    DEFAULT_CSS = """
    SecretScreen { align: center middle; }
    SecretScreen > Vertical {
        width: 90%; max-width: 90; height: auto;
        border: thick $error; background: $surface; padding: 0 1;
    }
    SecretScreen #secret-title { text-style: bold; }
    SecretScreen #secret-value { margin: 1 0; text-style: bold; }
    SecretScreen #secret-warning { color: $warning; }
    SecretScreen #secret-close { margin-top: 1; }
    """

    def __init__(self, title: str, value: str, warning: str) -> None:
        super().__init__()
        self._title = title
        self._value: str | None = value
        self._warning = warning

    def __repr__(self) -> str:
        return f"SecretScreen(title={self._title!r}, value=<redacted>)"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self._title), id="secret-title")
            yield Static(Text(self._warning), id="secret-warning")
            yield SecretValue(literal(self._value or ""), id="secret-value")
            yield Static(Text("Nothing is copied to the clipboard. Esc closes; it is not shown "
                              "again."))
            yield CalmButton("Close", id="secret-close")

    def on_mount(self) -> None:
        self.query_one("#secret-close", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_close()

    def action_close(self) -> None:
        self._value = None
        self.dismiss(None)
