"""A heartbeat: an optional public note to the counterparty, then send.

The note is public and non-authoritative (SPEC 3.6); the modal says so, so nobody types
something private into it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static

from tclk_tui.engine.views import DealView
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.calm_input import CalmInput
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.safe import literal

SendHeartbeat = Callable[[str | None], Awaitable[DealView]]


class HeartbeatScreen(ModalScreen[DealView | None]):
    BINDINGS: list[BindingType] = [  # noqa: RUF012
        Binding("escape", "cancel", "Back out"),
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
        self.busy = False

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
        if not self.busy:
            note = self.query_one("#heartbeat-note", Input).value.strip()
            self._send(note or None)

    @work(exclusive=True, group="heartbeat")
    async def _send(self, note: str | None) -> None:
        self.busy = True
        try:
            view = await self._send_heartbeat(note)
        except Exception as exc:
            self.busy = False
            self.query_one("#heartbeat-error", Static).update(
                Text.assemble(Text("Not sent: ", style="bold"), literal(describe_error(exc))))
            return
        self.busy = False
        self.dismiss(view)
