"""Restoring the master seed from a backup: masked input, explicit tick, then restore."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Footer, Input, Static

from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import SecretInput
from tclk_tui.tui.deliberate import DeliberateKeys
from tclk_tui.tui.dialog import Dialog
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.safe import literal

Restore = Callable[[str], Awaitable[object]]
RESTORE_ACK = "I understand this replaces the master seed this profile uses"


class RestoreScreen(DeliberateKeys, Dialog[bool]):
    HOLDS_SECRET = True
    ALLOW_SELECT = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back out", id="restore.cancel"),
    ]

    DEFAULT_CSS = """
    RestoreScreen { align: center middle; }
    RestoreScreen > Vertical {
        width: 90%; max-width: 90; height: auto;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    RestoreScreen #restore-error { color: $error; height: auto; }
    RestoreScreen #restore-buttons { height: auto; align-horizontal: right; }
    RestoreScreen Button { margin-left: 2; }
    """

    def __init__(self, restore: Restore) -> None:
        super().__init__()
        self._restore = restore

    def __repr__(self) -> str:
        return "RestoreScreen(<seed input redacted>)"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Restore the master seed from a backup", style="bold"))
            yield Static(Text("Type or paste the backup text. It is masked and never copied."))
            yield SecretInput(placeholder="backup text", id="restore-text", compact=True)
            yield Checkbox(RESTORE_ACK, id="restore-ack", compact=True)
            yield Static(Text(""), id="restore-error")
            with Horizontal(id="restore-buttons"):
                yield CalmButton("Back out", id="restore-cancel", compact=True)
                yield CalmButton("Restore", id="restore-ok", variant="warning", disabled=True,
                                 compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#restore-text", Input).focus()

    def ready(self) -> bool:
        text = self.query_one("#restore-text", Input).value.strip()
        return bool(text) and self.query_one("#restore-ack", Checkbox).value and self.idle

    @on(Input.Changed, "#restore-text")
    @on(Checkbox.Changed, "#restore-ack")
    def _changed(self) -> None:
        self.query_one("#restore-ok", Button).disabled = not self.ready()

    @on(Button.Pressed, "#restore-cancel")
    def action_cancel(self) -> None:
        if not self.busy:
            self.dismiss(False)

    @on(Button.Pressed, "#restore-ok")
    def _pressed_restore(self) -> None:
        if self.ready():
            self.answer(self._send, self._refused)

    async def _send(self) -> bool:
        field = self.query_one("#restore-text", Input)
        await self._restore(field.value.strip())
        field.value = ""
        return True

    def _refused(self, exc: BaseException) -> None:
        self.query_one("#restore-error", Static).update(
            Text.assemble(Text("Not restored: ", style="bold"), literal(describe_error(exc))))

    def busy_changed(self) -> None:
        self._changed()
