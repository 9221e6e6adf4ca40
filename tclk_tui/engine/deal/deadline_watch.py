"""The deadline watch: once a second, expire offers and raise deadline warnings.

It only warns; what the wallet does by itself on a deadline (a refund once its window opens)
and the alerts that reach a detached operator are the autopilot's (engine/deal/autopilot.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from tclk_tui.engine.board.offers_board import OffersBoard
from tclk_tui.engine.deadlines import danger_level
from tclk_tui.engine.deal.book import DealBook
from tclk_tui.engine.events import DeadlineWarning, EventBus

TICK_S = 1.0


class DeadlineWatch:
    def __init__(self, board: OffersBoard, book: DealBook, events: EventBus,
                 now_ms: Callable[[], int]) -> None:
        self.board = board
        self.book = book
        self.events = events
        self.now_ms = now_ms
        self._levels: dict[str, str] = {}

    async def run(self, closed: Callable[[], bool]) -> None:
        while not closed():
            self.tick()
            await asyncio.sleep(TICK_S)

    def tick(self) -> None:
        """Expire offers and raise deadline warnings; the faces call nothing else per second."""
        now = self.now_ms()
        changed = self.board.refresh_status(now)
        if changed.updated:
            self.events.publish(changed)
        for deal in self.book:
            d = deal.deadlines()
            if deal.state.terminal or deal.observer or d.last_safe_ms == 0:
                continue
            opened = deal.offer_record.timestamp_ms
            level = danger_level(now, d.last_safe_ms, d.last_safe_ms - opened)
            if self._levels.get(deal.deal_id) != level:
                self._levels[deal.deal_id] = level
                if level != "calm":
                    self.events.publish(DeadlineWarning(deal.deal_id, level, d.last_safe_what,
                                                        d.last_safe_ms - now))
