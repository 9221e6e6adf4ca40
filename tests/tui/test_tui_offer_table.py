from dataclasses import replace

from textual.app import App, ComposeResult

from tclk_tui.tui.offer_table import COLUMNS, OfferTable, cell_text, layout_columns
from tests.tui.conftest import HOSTILE, screen_text, wait_for
from tests.tui.contract_wallet import NOW_MS, Clock, make_offer


class Host(App[None]):
    def __init__(self, rows, clock=None) -> None:
        super().__init__()
        self.animation_level = "none"
        self.rows = rows
        self.clock = clock or Clock()
        self.messages: list[object] = []

    def compose(self) -> ComposeResult:
        yield OfferTable(clock_ms=self.clock, id="t")

    def on_mount(self) -> None:
        table = self.query_one(OfferTable)
        table.set_rows(self.rows)
        table.focus()

    def on_offer_table_highlighted(self, event: OfferTable.Highlighted) -> None:
        self.messages.append(("highlighted", event.row.offer_id if event.row else None))

    def on_offer_table_chosen(self, event: OfferTable.Chosen) -> None:
        self.messages.append(("chosen", event.row.offer_id))

    def on_offer_table_sort_requested(self, event: OfferTable.SortRequested) -> None:
        self.messages.append(("sort", event.key))


def test_columns_fit_80_columns_with_a_scrollbar():
    widths = layout_columns(79)
    assert sum(widths) + len(widths) - 1 <= 79
    wide = layout_columns(119)
    assert sum(wide) > sum(widths)
    assert sum(wide) + len(wide) - 1 <= 119


def test_cells_are_literal_and_countdowns_use_the_clock():
    row = make_offer(1, asset="[b]X", sender="did:key:z6Mk" + "a" * 44)
    assert cell_text("asset", row, NOW_MS).plain == "[b]X"
    assert cell_text("expires_ms", row, NOW_MS).plain == "10m01s"
    assert cell_text("expires_ms", row, row.expires_ms).plain == "past"
    assert cell_text("sender", replace(row, mine=True), NOW_MS).plain == "me"
    assert cell_text("sender", row, NOW_MS).plain.endswith("+")


async def test_renders_header_and_visible_rows_only():
    rows = [make_offer(index) for index in range(5000)]
    app = Host(rows)
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "amount" in text and "expiry" in text and "status" in text
        assert "1000 FLOP" in text
        assert "1000 FLOP" in text.splitlines()[1]
        assert app.query_one(OfferTable).row_count == 5000


async def test_cursor_keys_move_and_scroll():
    rows = [make_offer(index) for index in range(100)]
    app = Host(rows)
    async with app.run_test(size=(80, 12)) as pilot:
        table = app.query_one(OfferTable)
        await pilot.press("down", "down")
        assert table.cursor == 2
        await pilot.press("end")
        assert table.cursor == 99
        await pilot.pause()
        assert table.scroll_offset.y > 0
        assert str(rows[99].amount) in screen_text(app)
        await pilot.press("home")
        assert table.cursor == 0 and table.scroll_offset.y == 0
        await pilot.press("pagedown")
        assert table.cursor > 5
        await pilot.press("up")
        await wait_for(pilot, lambda: ("highlighted", table.cursor_row.offer_id) in app.messages)


async def test_enter_chooses_the_cursor_row():
    rows = [make_offer(index) for index in range(3)]
    app = Host(rows)
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: ("chosen", rows[1].offer_id) in app.messages)


async def test_header_click_requests_a_sort():
    app = Host([make_offer(1)])
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.click(OfferTable, offset=(1, 0))
        await wait_for(pilot, lambda: ("sort", COLUMNS[0].key) in app.messages)


async def test_row_click_moves_the_cursor_and_double_click_chooses():
    rows = [make_offer(index) for index in range(5)]
    app = Host(rows)
    async with app.run_test(size=(80, 12)) as pilot:
        table = app.query_one(OfferTable)
        await pilot.click(OfferTable, offset=(3, 3))
        assert table.cursor == 2
        await pilot.click(OfferTable, offset=(3, 3), times=2)
        await wait_for(pilot, lambda: ("chosen", rows[2].offer_id) in app.messages)


async def test_update_rows_repaints_only_the_changed_line():
    rows = [make_offer(index) for index in range(20_000)]
    app = Host(rows)
    async with app.run_test(size=(80, 12)) as pilot:
        table = app.query_one(OfferTable)
        await pilot.pause()
        repainted: list[int] = []
        original = table.refresh_line

        def spy(y: int) -> None:
            repainted.append(y)
            original(y)

        table.refresh_line = spy  # type: ignore[method-assign]
        changed = replace(rows[3], status="accepted")
        assert table.update_rows([changed]) == 1
        assert repainted == [4]  # header is line 0
        assert table.row_at(3).status == "accepted"
        assert table.row_count == 20_000
        far = replace(rows[15_000], status="accepted")
        repainted.clear()
        assert table.update_rows([far]) == 1
        assert repainted == []  # off screen: stored, not painted
        assert table.update_rows([make_offer(99_999)]) == 0  # not in this result set
        await pilot.pause()
        assert "accepted" in screen_text(app)


async def test_set_rows_keeps_the_cursor_on_the_same_offer():
    rows = [make_offer(index) for index in range(10)]
    app = Host(rows)
    async with app.run_test(size=(80, 12)) as pilot:
        table = app.query_one(OfferTable)
        await pilot.press("down", "down", "down")
        chosen = table.cursor_row
        table.set_rows(list(reversed(rows)))
        assert table.cursor_row == chosen
        table.set_rows(rows[:2])
        assert table.cursor == 1


async def test_empty_result_says_so():
    app = Host([])
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        assert "no offers match the filter" in screen_text(app)
        await pilot.press("down", "enter")
        assert not any(kind == "chosen" for kind, _ in app.messages)


async def test_hostile_cells_are_drawn_literally():
    row = make_offer(1, asset=HOSTILE, amount="[b]1[/b]", rails=("[@click=app.quit]",))
    app = Host([row])
    async with app.run_test(size=(120, 8)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "[b]1[/b]" in text
        assert "[@click=app" in text
        assert "\x1b" not in text
        await pilot.click(OfferTable, offset=(40, 1))
        assert app.is_running


async def test_countdowns_follow_the_clock():
    clock = Clock()
    app = Host([make_offer(0)], clock)
    async with app.run_test(size=(80, 8)) as pilot:
        await pilot.pause()
        assert "10m00s" in screen_text(app)
        clock.value += 5 * 60_000
        app.query_one(OfferTable).refresh()
        await pilot.pause()
        assert "5m00s" in screen_text(app)


async def test_an_amount_too_long_for_its_column_says_so_instead_of_being_cut():
    one, two = "0.000000000000000001", "0.000000000000000002"  # 1 and 2 wei
    long_one = make_offer(1, money_units=one, money_text=f"{one} ETH", asset="ETH")
    long_two = make_offer(2, money_units=two, money_text=f"{two} ETH", asset="ETH")
    app = Host([long_one, long_two, make_offer(3, money_units="0.1", money_text="0.1 ETH")])
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert "too long" in lines[1] and "too long" in lines[2]
        assert "0.0000000" not in screen_text(app)  # never a cut that reads alike
        assert "0.1" in lines[3]
