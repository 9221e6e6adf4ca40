"""The offers board: what the board pane shows, and the offers the operator opens from it.

It owns the board's reads (a requery at most every `REQUERY_MIN_INTERVAL`, so a burst of new
offers costs one query; changed rows alone are patched in place), and the engine calls an
offer leads to, as registry commands: accepting one (`accept`, behind `AcceptScreen`, which
asks the engine's dry run while open), posting a new one (`offer`, behind `OfferFormScreen`)
and counting the lines the board refused.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from textual.timer import Timer

from tclk_tui.engine.door import offer_params
from tclk_tui.engine.views import DealView, OfferDraft, OfferRow
from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.controllers.base import Controller, closing_quietly
from tclk_tui.tui.offer_form import OfferFormScreen
from tclk_tui.tui.rejected_screen import RejectedScreen

if TYPE_CHECKING:
    from tclk_tui.tui.app import TclkApp


class BoardController(Controller):
    """The board pane's reads and the offers opened from it."""

    REQUERY_MIN_INTERVAL = 0.25

    def __init__(self, app: TclkApp) -> None:
        super().__init__(app)
        self._last_requery = 0.0
        self._requery_timer: Timer | None = None

    # -- reads --------------------------------------------------------------------------------

    def board_changed(self, added: set[str], updated: set[str],
                      checking: int | None = None) -> None:
        board = self.door.board
        pane = self.app.board_pane
        requery = bool(added)
        if checking is not None:
            # The last check done: the rows shown while checking give way to the board's.
            requery = requery or (checking == 0 and pane.checking > 0)
            pane.set_checking(checking)
        if requery:
            self._schedule_requery()
        elif updated:
            rows = [row for oid in updated if (row := board.get(oid)) is not None]
            pane.apply_updates(rows)
        pane.set_counts(total=len(board), rejected=sum(board.rejected().values()))

    def _schedule_requery(self) -> None:
        if self._requery_timer is not None:
            return
        wait = self._last_requery + self.REQUERY_MIN_INTERVAL - time.monotonic()
        if wait <= 0:
            self.requery_board()
        else:
            self._requery_timer = self.app.set_timer(wait, self._timed_requery)

    def _timed_requery(self) -> None:
        self._requery_timer = None
        with closing_quietly():  # the board may fill while the app is quitting
            self.requery_board()

    def requery_board(self) -> None:
        board = self.door.board
        pane = self.app.board_pane
        rows = board.query(pane.board_query)
        pane.show_rows(rows, total=len(board), rejected=sum(board.rejected().values()))
        self._last_requery = time.monotonic()

    # -- offers -------------------------------------------------------------------------------

    def offer_chosen(self, row: OfferRow) -> None:
        if row.mine:
            self.app.deals.open_deal(row.offer_id)
        else:
            self.open_accept(row)

    def accept_requested(self, row: OfferRow) -> None:
        if row.mine:
            self.say("that offer is yours; its deal is on the Deals pane")
            return
        self.open_accept(row)

    def open_accept(self, row: OfferRow) -> None:
        door = self.door
        offer_id = row.offer_id

        async def accept(rail: str | None) -> DealView:
            view: DealView = await door.run("accept", {"offer": offer_id, "rail": rail})
            return view

        self.open_dialog(AcceptScreen(row, self.app.clock_ms, accept,
                                      row_source=lambda: door.board.get(offer_id),
                                      refusal=lambda: door.accept_refusal(offer_id)),
                         self._opened_deal)

    def _opened_deal(self, view: DealView | None) -> None:
        if isinstance(view, DealView):
            self.app.deals.open_deal(view.deal_id)

    def new_offer(self) -> None:
        door = self.door

        async def post(draft: OfferDraft) -> DealView:
            view: DealView = await door.run("offer", offer_params(draft))
            return view

        self.open_dialog(OfferFormScreen(door.validate_offer_draft, post), self._opened_deal)

    def rejected(self) -> None:
        self.open_dialog(RejectedScreen(self.door.board.rejected()))
