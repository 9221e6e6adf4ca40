"""Plain words: field names as an operator says them, marks that say what they mean, counts with
the right plural, and `paper` saying it settles nothing wherever a rail is chosen."""

from __future__ import annotations

from textual.widgets import Input, Select

from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.gates import GateFact
from tclk_tui.tui.accept_screen import ENGINE_CHOICE, rail_options
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.gate_screen import fact_text
from tests.tui.conftest import screen_text, wait_for
from tests.tui.contract_wallet import (
    Clock,
    ContractWallet,
    make_deadlines,
    make_deal,
    make_offer,
)

RAW_NAMES = ("claimByMs", "refundAfterMs", "expiresMs")


def app_for(rows=None, deals=None, rejected=None) -> TclkApp:
    clock = Clock()
    wallet = ContractWallet(rows=rows if rows is not None else [make_offer(0), make_offer(1)],
                            deals=deals if deals is not None else [make_deal()], clock=clock,
                            rejected=rejected)
    return TclkApp(LocalDoor(wallet), clock_ms=clock)


async def show(app: TclkApp, pilot, pane: str) -> str:
    await pilot.pause()
    app.action_show_pane(pane)
    await wait_for(pilot, lambda: app.active_pane == pane)
    await pilot.pause()
    return screen_text(app)


async def test_the_deal_room_says_claim_by_not_claimByMs():
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        text = await show(app, pilot, "deals")
        assert "reveal before claim by" in text
        assert not any(name in text for name in RAW_NAMES)


def test_gate_facts_and_refusals_use_plain_words():
    text = fact_text(GateFact("claim window", False, "past claimByMs; refundAfterMs soon")).plain
    assert "past claim by; refund after soon" in text and "claimByMs" not in text
    assert fact_text(GateFact("settles value", None, "x")).plain.startswith("note")


async def test_the_deal_list_says_the_danger_level_in_a_word():
    deals = [make_deal(), make_deal("0x" + "e3" * 32, deadlines=make_deadlines(level="danger"))]
    app = app_for(deals=deals)
    async with app.run_test(size=(100, 30)) as pilot:
        text = await show(app, pilot, "deals")
        rows = [row for row in text.splitlines() if "locked" in row and "FLOP" in row]
        assert any(row.lstrip().startswith("SOON") for row in rows)
        assert any(row.lstrip().startswith("DANGER") for row in rows)
        assert not any(row.lstrip().startswith("!") for row in rows)


async def test_the_board_detail_says_what_the_sender_mark_means():
    with_note = make_offer(1, capability=("memory",))
    without = make_offer(2, capability=None)
    app = app_for(rows=[with_note, without])
    async with app.run_test(size=(100, 30)) as pilot:
        board = app.query_one("BoardPane")
        for row, mark, words in ((with_note, "+", "lists rails memory"),
                                 (without, "?", "names no tclk1 rails")):
            board.query_one("OfferDetail").show(row)
            await pilot.pause()
            text = screen_text(app)
            assert f"{mark} = the sender's DID note {words}" in text


async def test_rejected_counts_have_the_right_plural():
    app = app_for(rejected={"bad signature": 3})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.action_rejected()
        await wait_for(pilot, lambda: app.screen is not app.default_screen)
        await pilot.pause()
        assert "3 lines in 1 reason" in screen_text(app)


async def test_one_offer_on_the_board_is_one_offer():
    app = app_for(rows=[make_offer(0)])
    async with app.run_test(size=(100, 30)) as pilot:
        text = await show(app, pilot, "board")
        assert "shown of 1 offer " in text


async def test_the_accept_dialog_says_paper_settles_nothing():
    row = make_offer(0, rails=("memory", "paper"))
    app = app_for(rows=[row])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.board.open_accept(app.door.board.get(row.offer_id))
        await wait_for(pilot, lambda: app.screen is not app.default_screen)
        await pilot.pause()
        assert app.screen.query_one("#accept-rail", Select).value == ENGINE_CHOICE
        labels = [prompt.plain for prompt, _ in rail_options(row.rails)]
        assert "paper (settles nothing)" in labels and "memory (settles nothing)" in labels
        assert [prompt.plain for prompt, _ in rail_options(("evm-htlc",))][1] == "evm-htlc"
        assert "memory,paper (all settle nothing)" in screen_text(app)


async def test_the_offer_form_says_which_rails_settle_nothing():
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.action_new_offer()
        await wait_for(pilot, lambda: app.screen.query("#field-rails"), what="the form")
        hint = app.screen.query_one("#field-rails", Input).placeholder
        assert "memory and paper settle nothing" in hint
        assert not any(name in screen_text(app) for name in RAW_NAMES)
