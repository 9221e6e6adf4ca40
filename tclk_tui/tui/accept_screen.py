"""Accepting an offer: the terms, a rail choice among the offer's own rails, then Accept.

Accepting commits the operator to a contract, so this modal is the confirmation: nothing is
sent until Accept is pressed, and the engine's answer (or refusal) is shown here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Select, Static

from tclk_tui.engine.views import DealView, OfferRow
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.offer_detail import offer_detail_text
from tclk_tui.tui.safe import literal

Accept = Callable[[str | None], Awaitable[DealView]]
ENGINE_CHOICE = "__engine__"


class AcceptScreen(ModalScreen[DealView | None]):
    BINDINGS: list[BindingType] = [  # noqa: RUF012
        Binding("escape", "cancel", "Back out"),
        Binding("y", "accept", "Accept"),
    ]

    DEFAULT_CSS = """
    AcceptScreen { align: center middle; }
    AcceptScreen > Vertical {
        width: 90%; max-width: 100; height: auto; max-height: 95%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    AcceptScreen #accept-terms { height: auto; max-height: 10; margin-bottom: 1; }
    AcceptScreen #accept-rail-row { height: 1; }
    AcceptScreen #accept-rail-label { width: 16; }
    AcceptScreen #accept-rail { width: 1fr; }
    AcceptScreen #accept-error { color: $error; height: auto; }
    AcceptScreen #accept-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    AcceptScreen Button { margin-left: 2; }
    """

    def __init__(self, row: OfferRow, now_ms: int, accept: Accept) -> None:
        super().__init__()
        self.row = row
        self._now_ms = now_ms
        self._accept = accept
        self.busy = False
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        options = [(Text("let the engine choose"), ENGINE_CHOICE)]
        options += [(literal(rail), rail) for rail in self.row.rails]
        with Vertical():
            yield Static(Text.assemble(("Accept this offer?", "bold"),
                                       ("   y accept · esc back out", "dim")))
            yield Static(offer_detail_text(self.row, self._now_ms), id="accept-terms")
            with Horizontal(id="accept-rail-row"):
                yield Static(Text("settle on rail"), id="accept-rail-label")
                yield Select(options, value=ENGINE_CHOICE, allow_blank=False, id="accept-rail",
                             compact=True)
            yield Static(Text(""), id="accept-error")
            with Horizontal(id="accept-buttons"):
                yield CalmButton("Back out", id="accept-cancel", compact=True)
                yield CalmButton("Accept", id="accept-ok", variant="primary", compact=True)

    def on_mount(self) -> None:
        self.query_one("#accept-cancel", Button).focus()

    @property
    def rail(self) -> str | None:
        value = self.query_one("#accept-rail", Select).value
        return None if value == ENGINE_CHOICE or not isinstance(value, str) else value

    @on(Button.Pressed, "#accept-cancel")
    def action_cancel(self) -> None:
        if not self.busy:
            self.dismiss(None)

    @on(Button.Pressed, "#accept-ok")
    def action_accept(self) -> None:
        if not self.busy:
            self._send(self.rail)

    @work(exclusive=True, group="accept")
    async def _send(self, rail: str | None) -> None:
        self.busy = True
        button = self.query_one("#accept-ok", Button)
        button.disabled = True
        try:
            view = await self._accept(rail)
        except Exception as exc:
            self.busy = False
            button.disabled = False
            self.error = describe_error(exc)
            self.query_one("#accept-error", Static).update(
                Text.assemble(Text("Not accepted: ", style="bold"), literal(self.error)))
            return
        self.busy = False
        self.dismiss(view)
