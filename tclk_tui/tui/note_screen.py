"""Frames posted by hand: a heartbeat (an optional public note), and a receipt.

The note is public and non-authoritative (SPEC 3.6); the modal says so, so nobody types
something private into it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Footer, Input, Static

from tclk_tui.engine.views import DealView
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.deliberate import DeliberateKeys
from tclk_tui.tui.dialog import Dialog
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.safe import literal

SendHeartbeat = Callable[[str | None], Awaitable[DealView]]


class HeartbeatScreen(DeliberateKeys, Dialog[DealView | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back out", id="heartbeat.cancel"),
    ]

    DEFAULT_CSS = """
    HeartbeatScreen { align: center middle; }
    HeartbeatScreen > Vertical {
        width: 80%; max-width: 80; height: auto;
        border: round $primary; background: $surface; padding: 0 1;
    }
    HeartbeatScreen #heartbeat-error { color: $error; height: auto; }
    HeartbeatScreen #heartbeat-buttons { height: auto; align-horizontal: right; }
    HeartbeatScreen Button { margin-left: 2; }
    """

    def __init__(self, send: SendHeartbeat) -> None:
        super().__init__()
        self._send_heartbeat = send

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Send a heartbeat (a signed liveness signal)", style="bold"))
            yield Static(Text("Optional note. It is public: anyone can read the deal room."))
            yield CalmInput(placeholder="note (optional)", id="heartbeat-note", max_length=200,
                            compact=True)
            yield Static(Text(""), id="heartbeat-error")
            with Horizontal(id="heartbeat-buttons"):
                yield CalmButton("Back out", id="heartbeat-cancel", compact=True)
                yield CalmButton("Send", id="heartbeat-send", variant="primary", compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#heartbeat-note", Input).focus()

    @on(Button.Pressed, "#heartbeat-cancel")
    def action_cancel(self) -> None:
        if not self.busy:
            self.dismiss(None)

    @on(Button.Pressed, "#heartbeat-send")
    @on(Input.Submitted, "#heartbeat-note")
    def _pressed_send(self) -> None:
        note = self.query_one("#heartbeat-note", Input).value.strip() or None
        self.answer(lambda: self._send_heartbeat(note), self._refused)

    def _refused(self, exc: BaseException) -> None:
        self.query_one("#heartbeat-error", Static).update(
            Text.assemble(Text("Not sent: ", style="bold"), literal(describe_error(exc))))


PostReceipt = Callable[[], Awaitable[DealView]]


class ReceiptScreen(DeliberateKeys, Dialog[DealView | None]):
    """A receipt is a signed frame in the deal room, so it is posted from a dialog that says
    so, never straight from a key; the engine posts one per deal."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back out", id="receipt.cancel"),
        Binding("y", "post", "Post receipt", id="receipt.post"),
    ]

    DEFAULT_CSS = """
    ReceiptScreen { align: center middle; }
    ReceiptScreen > Vertical {
        width: 80%; max-width: 80; height: auto;
        border: round $primary; background: $surface; padding: 0 1;
    }
    ReceiptScreen #receipt-error { color: $error; height: auto; }
    ReceiptScreen #receipt-buttons { height: auto; align-horizontal: right; }
    ReceiptScreen Button { margin-left: 2; }
    """

    def __init__(self, status: str, post: PostReceipt) -> None:
        super().__init__()
        self._status = status
        self._post_receipt = post

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Post a receipt   y post · esc back out", style="bold"))
            yield Static(Text.assemble(
                "Posts one signed receipt frame to the deal room saying this deal ended ",
                literal(self._status, style="bold"),
                ". It changes nothing on the rail, and a deal takes one receipt."))
            yield Static(Text(""), id="receipt-error")
            with Horizontal(id="receipt-buttons"):
                yield CalmButton("Back out", id="receipt-cancel", compact=True)
                yield CalmButton("Post receipt", id="receipt-post", variant="primary",
                                 compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#receipt-cancel", Button).focus()

    @on(Button.Pressed, "#receipt-cancel")
    def action_cancel(self) -> None:
        if not self.busy:
            self.dismiss(None)

    @on(Button.Pressed, "#receipt-post")
    def action_post(self) -> None:
        self.answer(self._post_receipt, self._refused)

    def _refused(self, exc: BaseException) -> None:
        self.query_one("#receipt-error", Static).update(
            Text.assemble(Text("Not posted: ", style="bold"), literal(describe_error(exc))))
