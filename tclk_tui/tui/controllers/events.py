"""The engine's event stream, its alerts, the venue's status and the once-a-second redraw.

Engine events arrive on one subscription and are drained in batches, so a burst of board
updates costs one repaint, not hundreds; each batch becomes one round of updates handed to the
controllers of the panes it touched. Alerts ring the bell once each; deadline warnings are
said once per level; the clock and countdowns redraw on the app's tick (expiry and deadline
warnings are the engine's own tick, and arrive as events).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from functools import partial
from typing import TYPE_CHECKING

from textual.css.query import NoMatches

from tclk_tui.engine.events import (
    Alert,
    BoardChanged,
    DeadlineWarning,
    DealAdvanced,
    Event,
    Notice,
    VenueStatus,
)
from tclk_tui.engine.words import plain_words
from tclk_tui.tui.controllers.base import Controller, closing_quietly
from tclk_tui.tui.errors import describe_error
from tclk_tui.tui.formatting import LEVEL_LABEL, countdown, short_hex, venue_text
from tclk_tui.tui.header_bar import HeaderBar
from tclk_tui.tui.safe import clean
from tclk_tui.tui.venue_budget_text import budget_lines

if TYPE_CHECKING:
    from tclk_tui.tui.app import TclkApp

SEVERITY = {"info": "information", "warning": "warning", "error": "error"}
LEVEL_SEVERITY = {"soon": "warning", "danger": "error", "past": "error"}


class EventsController(Controller):
    """Follows the wallet's events for the app, and redraws what moves with the clock."""

    def __init__(self, app: TclkApp) -> None:
        super().__init__(app)
        self._warned: dict[str, str] = {}
        self.events_applied = 0

    # -- engine events ------------------------------------------------------------------------

    def follow(self, queue: asyncio.Queue[Event]) -> None:
        """Follow `queue` in the app's worker group "engine-events" (one at a time)."""
        self.run_worker(partial(self._follow_events, queue), name="_follow_events",
                        group="engine-events", exclusive=True)

    async def _follow_events(self, queue: asyncio.Queue[Event]) -> None:
        try:
            while True:
                batch: list[Event] = [await queue.get()]
                while True:
                    try:
                        batch.append(queue.get_nowait())
                    except asyncio.QueueEmpty:
                        break
                with closing_quietly():
                    self.guarded("applying engine events", partial(self.apply_events, batch))
        finally:
            self.door.events.unsubscribe(queue)

    def guarded(self, what: str, call: Callable[[], object]) -> None:
        """Run a screen update; a failure is reported and the app keeps following."""
        try:
            call()
        except NoMatches:
            raise
        except Exception as exc:
            self.report(f"{what} failed", exc)

    def apply_events(self, batch: Iterable[Event]) -> None:
        """Fold a batch of engine events into one round of widget updates."""
        added: set[str] = set()
        updated: set[str] = set()
        checking: int | None = None
        board_touched = False
        deals_touched = False
        alerted = False
        for event in batch:
            self.events_applied += 1
            if isinstance(event, BoardChanged):
                added.update(event.added)
                updated.update(event.updated)
                checking = event.checking if event.checking is not None else checking
                board_touched = True
            elif isinstance(event, DealAdvanced):
                deals_touched = True
            elif isinstance(event, DeadlineWarning):
                deals_touched = True
                self._warn_deadline(event)
            elif isinstance(event, VenueStatus):
                self.show_venue_status(event)
            elif isinstance(event, Alert):
                alerted = True
            elif isinstance(event, Notice):
                self.say(clean(event.text, max_len=400),
                         SEVERITY.get(event.level, "information"))
        if alerted:
            self.show_alerts()
        if board_touched:
            self.app.board.board_changed(added, updated - added, checking)
        if deals_touched:
            self.app.deals.refresh_deals()
            if self.app.active_pane == "vault":
                self.app.vault.refresh_vault()

    def show_alerts(self) -> None:
        """Ring the bell and show each alert no face has shown yet (the engine raised it while
        we were away, or just now); each is shown once."""
        try:
            alerts = self.door.take_alerts()
        except Exception as exc:
            self.report("reading the alerts", exc, "warning")
            return
        if alerts:
            self.app.bell()
        for alert in alerts:
            self.say(f"ALERT: {clean(alert.text, max_len=400)}", "warning")

    def show_venue_status(self, status: VenueStatus) -> None:
        self.app.query_one(HeaderBar).show_status(status)
        self.app.board_pane.show_venue(status, self.door.venue_url)

    def _warn_deadline(self, event: DeadlineWarning) -> None:
        if self._warned.get(event.deal_id) == event.level:
            return
        self._warned[event.deal_id] = event.level
        level = LEVEL_LABEL.get(event.level, clean(event.level, max_len=12))
        text = (f"deal {short_hex(event.deal_id)}: {level}"
                f" - {clean(plain_words(event.what), max_len=120)}"
                f" ({countdown(event.ms_left)} left)")
        self.say(text, LEVEL_SEVERITY.get(event.level, "information"))

    def say_venue_status(self) -> None:
        """The venue's status in full, with the budgets the wallet has left there."""
        status = self.app.query_one(HeaderBar).status
        text = venue_text(status.state).plain
        if status.detail:
            text += f": {clean(status.detail, max_len=400)}"
        try:
            budget = self.door.venue_budget()
        except Exception as exc:  # an owner gone away: the status still says what it knows
            budget, text = None, text + f" (budgets unknown: {describe_error(exc)})"
        lines = budget_lines(budget) if budget is not None else []
        self.say("\n".join([f"venue {clean(self.door.venue_url, max_len=80)}: {text}",
                            *lines]))

    # -- periodic -----------------------------------------------------------------------------

    def tick(self) -> None:
        with closing_quietly():
            self.guarded("redrawing", self._tick_panes)

    def _tick_panes(self) -> None:
        """Redraw countdowns and the clock. Expiry and deadline warnings are the engine's own
        tick; they arrive as events."""
        self.app.query_one(HeaderBar).tick()
        if self.agents is not None:
            self.app.approvals.lapse_approvals()
        pane = self.app.active_pane
        if pane == "board":
            self.app.board_pane.tick()
        elif pane == "deals":
            self.app.deals.show_selected_deal()
            self.app.deal_room.tick()
