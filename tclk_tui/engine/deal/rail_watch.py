"""Asking value-moving rails about live locks: the chain, not the room, is the source of truth.

Every couple of seconds each deal with a lock on a rail that moves value asks that rail what
it holds. A payer learns the secret of a claim made on chain without a reveal frame, a payee's
verification follows confirmations and reorgs, and the deal view shows the rail's word beside
the transcript's (see `DealSession.watch_rail`). A payer's accepted deal on such a rail has
its account read for the lock gate (balance, gas, the margin: `DealSession.quote_lock`). A rail
that cannot answer is a notice, once per distinct failure, never a crash and never a status
change.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from tclk_tui.engine.deal.book import DealBook
from tclk_tui.engine.events import EventBus, Notice
from tclk_tui.rails.base import SettlementRail

__all__ = ["RAIL_WATCH_S", "RailWatch"]

RAIL_WATCH_S = 2.0


class RailWatch:
    def __init__(self, book: DealBook, rails: Mapping[str, SettlementRail],
                 events: EventBus) -> None:
        self.book = book
        self.rails = rails
        self.events = events
        self._errors: dict[str, str] = {}  # the last rail read failure per deal

    async def run(self, closed: Callable[[], bool]) -> None:
        while not closed():
            await self.once()
            await asyncio.sleep(RAIL_WATCH_S)

    async def once(self) -> None:
        for rail_id, rail in self.rails.items():
            try:
                await rail.refresh_account()
            except Exception as exc:  # the node is down: the deals below will say so too
                text = f"{rail_id}: could not read the account balance: {exc}"
                if self._errors.get(rail_id) != text:
                    self._errors[rail_id] = text
                    self.events.publish(Notice("warning", text))
            else:
                self._errors.pop(rail_id, None)
        for deal in list(self.book):
            state = deal.state
            if state.status == "accepted" and deal.role == "payer":
                await deal.quote_lock()  # the lock gate's balance, gas and margin, kept fresh
            deal_rail = self.rails.get(state.rail or "")
            if deal_rail is None or not deal_rail.moves_value or state.rail_ref is None:
                continue
            if state.status != "locked" and deal.rail_status == state.status:
                continue  # settled, and the rail already agreed
            try:
                await deal.watch_rail()
            except Exception as exc:  # an unreachable node is a notice, never a crash
                text = f"{state.rail}: could not read the lock: {exc}"
                if self._errors.get(deal.deal_id) != text:
                    self._errors[deal.deal_id] = text
                    self.events.publish(Notice("warning", text, deal_id=deal.deal_id))
            else:
                self._errors.pop(deal.deal_id, None)

    async def reconcile(self) -> None:
        """A rail with its own transaction journal (evm-htlc) looks its transactions up."""
        for rail_id, rail in self.rails.items():
            try:
                notes = await rail.reconcile()
            except Exception as exc:  # the node may be down at start-up: say so, go on
                self.events.publish(Notice("warning", f"{rail_id}: could not reconcile its "
                                           f"transactions yet: {exc}"))
                continue
            for note in notes:
                self.events.publish(Notice("info", note))
