"""Accepting an offer: the terms, a rail choice among the offer's own rails, then Accept.

Accepting commits the operator to a contract, so this modal is the confirmation: nothing is
sent until Accept is pressed, and the engine's answer (or refusal) is shown here. The terms are
redrawn every second from the board's current row, so the countdowns run; and every second the
engine is asked whether it would accept the offer now (its dry run through the protocol's
machine, `refusal`), so an offer that is taken, cancelled or expired while the modal is open says
so, in the engine's words, and can no longer be accepted. The screen knows no rule of its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Footer, Select, Static

from tclk_tui.engine.views import DealView, OfferRow
from tclk_tui.engine.words import rail_choice
from tclk_tui.tui.calm_button import CalmButton
from tclk_tui.tui.deliberate import DeliberateKeys
from tclk_tui.tui.dialog import Dialog
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.offer_detail import offer_detail_text, raw_line_text
from tclk_tui.tui.safe import literal

Accept = Callable[[str | None], Awaitable[DealView]]
RowSource = Callable[[], OfferRow | None]
Refusal = Callable[[], str | None]  # why the engine would not accept it now, or None
ENGINE_CHOICE = "__engine__"
def rail_options(rails: tuple[str, ...]) -> list[tuple[Text, str]]:
    """The rail choice; a rail that settles nothing says so where it is chosen."""
    return [(Text("let the engine choose"), ENGINE_CHOICE),
            *((literal(rail_choice(rail)), rail) for rail in rails)]


class AcceptScreen(DeliberateKeys, Dialog[DealView | None]):
    TICK_SECONDS = 1.0

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back out", id="accept.cancel"),
        Binding("y", "accept", "Accept", id="accept.confirm"),
    ]

    DEFAULT_CSS = """
    AcceptScreen { align: center middle; }
    AcceptScreen > Vertical {
        width: 90%; max-width: 100; height: auto; max-height: 100%;
        border: round $primary; background: $surface; padding: 0 1;
    }
    AcceptScreen #accept-terms { height: auto; }
    AcceptScreen #accept-line-box { height: auto; max-height: 6; margin-bottom: 1; }
    AcceptScreen #accept-line { height: auto; }
    AcceptScreen #accept-closed { color: $error; text-style: bold; height: auto; }
    AcceptScreen #accept-rail-row { height: 1; }
    AcceptScreen #accept-rail-label { width: 16; }
    AcceptScreen #accept-rail { width: 1fr; }
    AcceptScreen #accept-error { color: $error; height: auto; }
    AcceptScreen #accept-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    AcceptScreen Button { margin-left: 2; }
    """

    def __init__(self, row: OfferRow, clock_ms: Callable[[], int], accept: Accept, *,
                 refusal: Refusal, row_source: RowSource | None = None) -> None:
        super().__init__()
        self.row: OfferRow | None = row
        self._clock_ms = clock_ms
        self._accept = accept
        self._refusal = refusal
        self._row_source = row_source
        self.error: str | None = None
        # Why the offer cannot be accepted any more (None while it is open).
        self.closed: str | None = None

    def compose(self) -> ComposeResult:
        options = rail_options(self.row.rails if self.row is not None else ())
        with Vertical():
            yield Static(Text.assemble(("Accept this offer?", "bold"),
                                       ("   y accept · esc back out", "dim")))
            yield Static(offer_detail_text(self.row, self._clock_ms(), with_line=False),
                         id="accept-terms")
            # The raw line whole, broken between JSON members, scrolled when it is long.
            with VerticalScroll(id="accept-line-box"):
                yield Static(Text(""), id="accept-line")
            closed = Static(Text(""), id="accept-closed")
            closed.display = False
            yield closed
            with Horizontal(id="accept-rail-row"):
                yield Static(Text("settle on rail"), id="accept-rail-label")
                yield Select(options, value=ENGINE_CHOICE, allow_blank=False, id="accept-rail",
                             compact=True)
            yield Static(Text(""), id="accept-error")
            with Horizontal(id="accept-buttons"):
                yield CalmButton("Back out", id="accept-cancel", compact=True)
                yield CalmButton("Accept", id="accept-ok", variant="primary", compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.tick()
        self.query_one("#accept-cancel", Button).focus()
        self.set_interval(self.TICK_SECONDS, self.tick)

    def tick(self) -> None:
        """Redraw the terms from the board's current row and the clock, and close the door on
        an offer that is no longer open."""
        now = self._clock_ms()
        problem: str | None = None
        refusal: str | None = None
        try:
            if self._row_source is not None:
                self.row = self._row_source()
            refusal = self._refusal()
        except Exception as exc:  # fail closed: no Accept on a board we cannot read
            problem = f"the board could not be read ({describe_error(exc)})"
        else:
            if self.row is None and refusal is None:  # the row went: so did the offer
                refusal = "no such offer on the board"
        if self.row is not None:
            self.query_one("#accept-terms", Static).update(
                offer_detail_text(self.row, now, with_line=False))
            self._show_line()
        self.closed = problem or refusal
        notice = self.query_one("#accept-closed", Static)
        notice.update(Text("") if self.closed is None else Text.assemble(
            Text("This offer is no longer open: ", style="bold"), literal(self.closed)))
        notice.display = self.closed is not None
        self._sync()

    def on_resize(self, event: events.Resize) -> None:
        self._show_line()

    def _show_line(self) -> None:
        if self.row is None:
            return
        box = self.query_one("#accept-line", Static)
        width = box.content_region.width or 60
        if (self.row.line, width) != getattr(self, "_line_shown", None):
            self._line_shown = (self.row.line, width)
            box.update(raw_line_text(self.row.line, width))

    def _sync(self) -> None:
        self.query_one("#accept-ok", Button).disabled = not self.idle or self.closed is not None
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer shows `y` dimmed while Accept is off."""
        if action == "accept":
            return None if not self.idle or self.closed is not None else True
        return True

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
        if self.closed is None:
            rail = self.rail
            self.answer(lambda: self._accept(rail), self._refused)

    def _refused(self, exc: BaseException) -> None:
        self.error = describe_error(exc)
        self.query_one("#accept-error", Static).update(
            Text.assemble(Text("Not accepted: ", style="bold"), literal(self.error)))

    def busy_changed(self) -> None:
        self._sync()
