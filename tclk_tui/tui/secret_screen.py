"""A secret on screen, once, because the operator asked and confirmed.

The value is drawn without selection (so screen copy cannot pick it up), the app refuses any
clipboard copy while this screen is open, and the value is dropped when the screen closes.
Whoever opens this screen hands the value over and keeps no copy of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Button, Footer, Static

from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.dialog import Dialog
from tclk_tui.tui.safe import literal


def spaced_groups(text: str) -> str:
    """A grouped text (`label xxxx-xxxx-...`) with spaces between its groups.

    A terminal wraps only at spaces, so a dash-joined backup folds in the middle of a group at
    80 columns, and a group split across two lines is easy to copy down wrong. The label (the
    first word, when there is more than one) keeps its own dash. Backup parsing ignores spaces
    and dashes alike, so the spaced text restores the same seed.
    """
    words = text.split()
    if len(words) > 1:
        label, rest = words[0], words[1:]
    else:
        label, rest = "", words
    groups = [group for word in rest for group in word.split("-") if group]
    return " ".join([label, *groups] if label else groups)


class SecretValue(Static):
    ALLOW_SELECT = False


class SecretScreen(Dialog[None]):
    """Shows one value, or several numbered ones (shares), until Esc or Close."""

    HOLDS_SECRET = True
    ALLOW_SELECT = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="secret.close"),
    ]

    DEFAULT_CSS = """
    SecretScreen { align: center middle; }
    SecretScreen > Vertical {
        width: 90%; max-width: 90; height: auto; max-height: 100%;
        border: thick $error; background: $surface; padding: 0 1;
    }
    SecretScreen #secret-title { text-style: bold; }
    SecretScreen #secret-value { margin: 1 0; text-style: bold; }
    SecretScreen #secret-warning { color: $warning; }
    SecretScreen #secret-close { margin-top: 1; }
    """

    def __init__(self, title: str, value: str | Sequence[str], warning: str, *,
                 grouped: bool = False) -> None:
        super().__init__()
        self._title = title
        values = [value] if isinstance(value, str) else list(value)
        self._values: list[str] | None = [spaced_groups(v) for v in values] if grouped \
            else values
        self._warning = warning

    def __repr__(self) -> str:
        return f"SecretScreen(title={self._title!r}, value=<redacted>)"

    def _value_text(self) -> Text:
        values = self._values or []
        if len(values) == 1:
            return literal(values[0])
        out = Text(end="")
        for index, value in enumerate(values, start=1):
            if index > 1:
                out.append("\n")
            out.append(f"{index:>2}. ")
            out.append_text(literal(value))
        return out

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self._title), id="secret-title")
            yield Static(Text(self._warning), id="secret-warning")
            yield SecretValue(self._value_text(), id="secret-value")
            # Whether it can be shown again depends on the value: its warning says so.
            yield Static(Text("Nothing is copied to the clipboard. Esc closes and clears it."))
            yield CalmButton("Close", id="secret-close")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#secret-close", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_close()

    def action_close(self) -> None:
        self._values = None
        # Esc can arrive before the value is drawn; then there is nothing to clear.
        for shown in self.query("#secret-value").results(SecretValue):
            shown.update(Text(""))
        self.dismiss(None)
