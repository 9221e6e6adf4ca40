from dataclasses import replace

from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.events import BoardChanged
from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.board_pane import BoardPane
from tclk_tui.tui.offer_detail import OfferDetail
from tclk_tui.tui.offer_table import OfferTable
from tclk_tui.tui.rejected_screen import RejectedScreen
from tests.tui.conftest import screen_text, wait_for
from tests.tui.contract_wallet import make_offer


async def test_board_shows_every_open_offer_with_counts(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.query_one(OfferTable)
        assert table.row_count == 41
        text = screen_text(app)
        assert "41 shown of 41 offers" in text
        assert "4 rejected" in text
        assert "1000 FLOP" in text


async def test_filter_line_asks_the_engine_and_shows_its_answer(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("slash")
        await pilot.press(*"asset:USDC")
        table = app.query_one(OfferTable)
        await wait_for(pilot, lambda: wallet.board.queries[-1].asset == "USDC")
        assert table.row_count == sum(1 for row in wallet.board.rows.values()
                                      if row.asset == "USDC")
        assert all(table.row_at(i).asset == "USDC" for i in range(table.row_count))
        await pilot.press("enter")
        assert app.focused is table


async def test_sort_keys_cycle_and_reverse(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(BoardPane)
        await pilot.press("s")
        await wait_for(pilot, lambda: wallet.board.queries[-1].sort == "amount")
        await pilot.press("r")
        await wait_for(pilot, lambda: wallet.board.queries[-1].descending)
        table = app.query_one(OfferTable)
        amounts = [int(table.row_at(i).amount) for i in range(table.row_count)]
        assert amounts == sorted(amounts, reverse=True)
        assert pane.board_query.sort == "amount"
        assert "sorted by amount descending" in screen_text(app)


async def test_live_update_changes_a_row_in_place_without_requery(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.query_one(OfferTable)
        first = table.row_at(0)
        queries = len(wallet.board.queries)
        wallet.board.put(replace(first, status="accepted"))
        wallet.events.publish(BoardChanged(updated=(first.offer_id,)))
        await wait_for(pilot, lambda: table.row_at(0).status == "accepted")
        assert len(wallet.board.queries) == queries
        assert "accepted" in screen_text(app)


async def test_new_offers_trigger_one_requery(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.query_one(OfferTable)
        new = make_offer(500, expires_ms=clock.value + 1000)
        wallet.board.put(new)
        wallet.events.publish(BoardChanged(added=(new.offer_id,)))
        await wait_for(pilot, lambda: table.row_count == 42)
        assert table.index_of(new.offer_id) == 0  # soonest expiry first


async def test_expiry_tick_updates_rows(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.query_one(OfferTable)
        clock.value += 10 * 60_000 + 500
        # The engine's own tick expires offers and publishes what changed.
        wallet.events.publish(wallet.board.refresh_status(clock.value))
        await wait_for(pilot, lambda: table.row_at(0).status == "expired")


async def test_detail_panel_follows_the_cursor(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        detail = app.query_one(OfferDetail)
        table = app.query_one(OfferTable)
        await wait_for(pilot, lambda: detail.row is not None)
        await pilot.press("down")
        await wait_for(pilot, lambda: detail.row == table.cursor_row)
        assert table.cursor_row.offer_id in screen_text(app)


async def test_rejected_reasons_are_one_key_away(wallet, clock):
    wallet.board._rejected["[b]bold\x1b[31m"] = 2
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("exclamation_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, RejectedScreen))
        text = screen_text(app)
        assert "bad signature" in text and "frame sender is not the signer" in text
        assert "[b]bold\\x1b[31m" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RejectedScreen))


async def test_accept_flow_opens_the_deal(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(OfferTable)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AcceptScreen))
        row = app.screen.row
        assert row == table.cursor_row
        await pilot.click("#accept-ok")
        await wait_for(pilot, lambda: ("accept_offer", (row.offer_id, None)) in wallet.calls)
        await wait_for(pilot, lambda: app.active_pane == "deals")
        assert app.deal_room.view is not None and app.deal_room.view.deal_id == row.offer_id


async def test_enter_on_my_own_offer_opens_its_deal_not_accept(wallet, clock):
    mine = next(row for row in wallet.board.rows.values() if row.mine)
    wallet.views[mine.offer_id] = __import__("tests.tui.contract_wallet", fromlist=["x"]) \
        .make_deal(mine.offer_id, status="proposed", actions=frozenset({"cancel"}))
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.query_one(OfferTable)
        table.move_to(mine.offer_id)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.active_pane == "deals")
        assert app.deal_room.view.deal_id == mine.offer_id
        app.action_show_pane("board")
        table.move_to(mine.offer_id)
        await pilot.press("a")
        await pilot.pause()
        assert not isinstance(app.screen, AcceptScreen)
