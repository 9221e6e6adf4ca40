"""A first open paints the board before its ring is read: verified offers appear while the
status line says how many records are still being checked, and no row the table is ever
handed is one the whole board does not have exactly so."""

from __future__ import annotations

import asyncio
from collections import Counter

from textual.widgets import Static

from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.views import BoardQuery, OfferRow
from tclk_tui.engine.wallet import Wallet
from tclk_tui.technocore.records import ExportChecks
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.offer_table import OfferTable
from tests.engine.helpers import file_vault
from tests.engine.hostile_ring import build
from tests.tui.conftest import wait_for_timer

# The pass in venue order waits before this chunk (its second reading: the preview reads the
# newest chunks first) until the test has looked: a first batch of records is in by then.
HOLD_AT = 9


async def test_the_board_fills_while_it_is_checked_and_shows_only_verified_offers(
        venue, tmp_path, monkeypatch):
    ring = build(venue.venue)
    handed: list[OfferRow] = []
    set_rows, update_rows = OfferTable.set_rows, OfferTable.update_rows
    monkeypatch.setattr(OfferTable, "set_rows", lambda self, rows: set_rows(
        self, handed.extend(rows := list(rows)) or rows))
    monkeypatch.setattr(OfferTable, "update_rows", lambda self, rows: update_rows(
        self, handed.extend(rows := list(rows)) or rows))
    looked = asyncio.Event()
    outcomes = ExportChecks.outcomes
    readings: Counter[int] = Counter()

    async def held(self: ExportChecks, index: int) -> object:
        readings[index] += 1
        if index == HOLD_AT and readings[index] == 2:
            await looked.wait()
        return await outcomes(self, index)

    monkeypatch.setattr(ExportChecks, "outcomes", held)

    wallet = await Wallet.open("carol", venue_url=venue.url, data_dir=tmp_path,
                               vault=file_vault(tmp_path, "carol"), follow=True,
                               background=True)
    try:
        app = TclkApp(LocalDoor(wallet))
        async with app.run_test(size=(120, 40)) as pilot:
            table = app.query_one(OfferTable)
            status = app.board_pane.query_one("#board-status", Static)
            # The preview's rows, then a first batch of 1,024 in venue order beside them.
            await wait_for_timer(pilot, lambda: table.row_count > 1024
                                 and "still being checked" in str(status.render()),
                                 timeout_s=30, what="verified offers while the rest is checked")
            assert not wallet.rooms.first_read.is_set()
            looked.set()
            await wait_for_timer(pilot, lambda: wallet.rooms.first_read.is_set()
                                 and "still being checked" not in str(status.render())
                                 and table.row_count == len(wallet.board.query(BoardQuery())),
                                 timeout_s=30, what="the whole board")
            final = {row.offer_id: row for row in wallet.board.query(BoardQuery(status=None))}
            assert [table.row_at(i) for i in range(table.row_count)] == \
                wallet.board.query(BoardQuery())
    finally:
        await wallet.close()
    assert handed
    for row in handed:  # every row ever drawn: the whole board's own, verified
        assert row == final[row.offer_id]
    assert not {row.offer_id for row in handed} & set(ring.forged)
    assert ring.accepted not in {row.offer_id for row in handed}  # accepted: not open
