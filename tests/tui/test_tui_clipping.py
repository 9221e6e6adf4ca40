"""Nothing is cut without a sign: a line too long for its place ends in an ellipsis and the
whole of it is one key away, or it wraps; the transcript says which room each record is from."""

from __future__ import annotations

import json

from textual.widgets import Static

from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.views import RecordView
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.offer_detail import json_pieces, raw_line_text
from tclk_tui.tui.record_screen import RecordScreen
from tclk_tui.tui.transcript_table import TranscriptTable
from tests.tui.conftest import screen_text, wait_for
from tests.tui.contract_wallet import NOW_MS, Clock, ContractWallet, make_deal, make_offer

DEAL = "0x" + "d1" * 32
LONG_DID = "did:key:z6Mk" + "Q" * 90 + "END"
LONG_SUMMARY = "accept with statement " + "ab" * 60 + " TAIL-OF-SUMMARY"
LONG_LINE = "tclk1 " + json.dumps({f"field{i:02d}": "v" * 12 for i in range(30)},
                                  separators=(",", ":"))


def long_records() -> tuple[RecordView, ...]:
    return (
        RecordView(room="tclk-offers", seq=10, ts_ms=NOW_MS - 60_000, sender=LONG_DID,
                   verified=True, type="offer", summary="offer: pay 5000 FLOP on memory",
                   ok=True, reason=None, mine=False),
        RecordView(room="mb-p-tclk-abcd1212", seq=3, ts_ms=NOW_MS - 30_000, sender=LONG_DID,
                   verified=True, type="accept", summary=LONG_SUMMARY, ok=True, reason=None,
                   mine=False),
    )


def app_with(records: tuple[RecordView, ...] = (), line: str | None = None) -> TclkApp:
    clock = Clock()
    offer = make_offer(0, line=line) if line is not None else make_offer(0)
    deal = make_deal(DEAL, records=records) if records else make_deal(DEAL)
    wallet = ContractWallet(rows=[offer, make_offer(1)], deals=[deal], clock=clock)
    return TclkApp(LocalDoor(wallet), clock_ms=clock)


def rows_with(app: TclkApp, needle: str) -> list[str]:
    return [row for row in screen_text(app).splitlines() if needle in row]


async def open_deal(app: TclkApp, pilot) -> TranscriptTable:
    await pilot.pause()
    app.action_show_pane("deals")
    await wait_for(pilot, lambda: app.active_pane == "deals")
    app.deals.open_deal(DEAL)
    table = app.query_one(TranscriptTable)
    await wait_for(pilot, lambda: len(table.records) == 2, what="the transcript")
    await pilot.pause()
    return table


async def test_transcript_names_the_room_of_each_record():
    app = app_with(long_records())
    async with app.run_test(size=(80, 24)) as pilot:
        await open_deal(app, pilot)
        assert rows_with(app, "room") and "room" in rows_with(app, "sender")[0]
        assert rows_with(app, "tclk-offers")  # the offers room, by its name
        assert rows_with(app, "mb-p-tclk-a")  # the deal's mailbox room, cut with a sign
        assert any("mb-p-tclk-a…" in row for row in rows_with(app, "mb-p-tclk-a"))


async def test_a_long_transcript_line_ends_in_an_ellipsis_and_enter_shows_it_whole():
    app = app_with(long_records())
    async with app.run_test(size=(80, 24)) as pilot:
        table = await open_deal(app, pilot)
        row = rows_with(app, "accept with statement")[0]  # the transcript's row
        assert row.rstrip().endswith("…") and "TAIL-OF-SUMMARY" not in row
        table.focus()
        table.move_cursor(row=1)
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RecordScreen), what="the record")
        await pilot.pause()
        whole = app.screen.query_one("#record-whole", Static)
        text = str(whole.render())
        assert "TAIL-OF-SUMMARY" in text and LONG_DID in text and "mb-p-tclk-abcd1212" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.default_screen)
        assert app.focused is table  # back where the operator was


async def test_the_record_detail_shows_the_sender_or_says_it_is_cut():
    app = app_with(long_records())
    async with app.run_test(size=(80, 24)) as pilot:
        table = await open_deal(app, pilot)
        table.move_cursor(row=1)
        await pilot.pause()
        sender_rows = rows_with(app, "from did:key:z6MkQQ")
        assert len(sender_rows) == 1  # visible even under a long summary
        assert sender_rows[0].rstrip().endswith("…")
        assert all(r.rstrip().endswith("…") for r in rows_with(app, "accept with statement"))


async def test_the_board_detail_ends_a_long_raw_line_in_an_ellipsis():
    app = app_with(line=LONG_LINE)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await wait_for(pilot, lambda: rows_with(app, "line: tclk1"), what="the detail")
        (row,) = rows_with(app, "line: tclk1")
        assert row.rstrip().endswith("…")


async def test_the_accept_dialog_shows_the_raw_line_whole_broken_between_members():
    app = app_with(line=LONG_LINE)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.board.open_accept(app.door.board.get(make_offer(0).offer_id))
        await wait_for(pilot, lambda: app.screen is not app.default_screen)
        await pilot.pause()
        shown = str(app.screen.query_one("#accept-line", Static).render())
        rows = shown.split("\n")
        assert "".join(rows) == LONG_LINE  # every character, none added
        assert len(rows) > 1 and all(row.endswith(",") for row in rows[:-1])
        width = app.screen.query_one("#accept-line", Static).content_region.width
        assert all(len(row) <= width for row in rows)


def test_json_pieces_break_only_between_members():
    line = 'tclk1 {"a":"x,y","b":[1,2],"c":"q\\",r"}'
    pieces = json_pieces(line)
    assert "".join(pieces) == line
    assert pieces == ['tclk1 {"a":"x,y",', '"b":[1,', '2],', '"c":"q\\",r"}']
    assert raw_line_text(line, 200).plain == line
    assert raw_line_text(line, 5).plain.split("\n") == pieces
    assert json_pieces("") == [""]
