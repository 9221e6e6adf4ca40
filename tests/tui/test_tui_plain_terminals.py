"""Small and plain terminals: every dialog's buttons at 80x24, the cursor row told from the
header and problems from normal lines on a 16-colour terminal, and every state in words with
NO_COLOR.

A 16-colour terminal gets what Rich makes of the app's true colours (`Color.downgrade` to the
standard palette), so that is what these checks read, cell by cell, as in test_tui_readable.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from rich.color import ColorSystem
from rich.style import Style
from textual.widget import Widget

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.calm_button import NOT_YET
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.themes import load_themes
from tests.tui.conftest import gate_open, screen_text, wait_for
from tests.tui.contract_wallet import Clock, ContractWallet, make_deal, make_offer

BUNDLED = tuple(theme.name for theme in load_themes().themes)
DEAL = "0x" + "d1" * 32
Look = tuple[int | None, int | None, bool, bool, bool]


def plain_app(theme: str = "tclk-dark") -> TclkApp:
    clock = Clock()
    deal = make_deal(DEAL)
    refused = replace(deal.records[-1], seq=3, verified=True, ok=False, summary="a stray lock",
                      reason="the sender is not a party")
    wallet = ContractWallet(rows=[make_offer(index) for index in range(12)], clock=clock,
                            deals=[replace(deal, records=(*deal.records, refused))],
                            referee=True)
    return TclkApp(LocalDoor(wallet), clock_ms=clock, theme=theme)


def sixteen(style: Style) -> Look:
    """A cell's look on a 16-colour terminal: palette numbers and the text attributes."""
    def number(color):
        return None if color is None else color.downgrade(ColorSystem.STANDARD).number

    return (number(style.color), number(style.bgcolor), bool(style.bold),
            bool(style.underline), bool(style.reverse))


def line_look(app: TclkApp, widget: Widget, row: int) -> Look:
    """The look most of a widget's text on one of its rows has (by cells)."""
    region = widget.region
    strip = app.screen._compositor.render_strips()[region.y + row]
    looks: Counter[Look] = Counter()
    x = 0
    for segment in strip:
        start, x = x, x + segment.cell_length
        if region.x <= start < region.right and segment.style and segment.text.strip():
            looks[sixteen(segment.style)] += len(segment.text.strip())
    assert looks, f"nothing drawn on row {row} of {widget!r}"
    return looks.most_common(1)[0][0]


def look_of(app: TclkApp, text: str) -> Look:
    """The look of the first cell drawing `text` on the screen."""
    for strip in app.screen._compositor.render_strips():
        for segment in strip:
            if text in segment.text and segment.style is not None:
                return sixteen(segment.style)
    raise AssertionError(f"{text!r} is not drawn")


@pytest.mark.parametrize("theme", BUNDLED)
async def test_the_cursor_row_is_not_the_header_on_16_colours(theme):
    app = plain_app(theme)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        tables = [("board", "#offer-table", 1)]
        for pane, selector, cursor_row in [*tables, ("deals", "#transcript", None),
                                           ("arbitration", "#cases-table", 1),
                                           ("vault", "#vault-secrets", 1)]:
            app.action_show_pane(pane)
            await wait_for(pilot, lambda pane=pane: app.active_pane == pane)
            await pilot.pause()
            table = app.query_one(selector)
            row = cursor_row if cursor_row is not None else table.cursor_row + 1
            header, cursor = line_look(app, table, 0), line_look(app, table, row)
            assert header != cursor, (theme, pane, header, cursor)


@pytest.mark.parametrize("theme", BUNDLED)
async def test_problems_are_more_than_bold_on_16_colours(theme):
    app = plain_app(theme)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.deals.open_deal(DEAL)
        await wait_for(pilot, lambda: "REJ" in screen_text(app) or "BAD" in screen_text(app))
        await pilot.pause()
        normal = look_of(app, "ok")
        for badge in ("REJ", "BAD"):
            problem = look_of(app, badge)
            assert problem[:2] != normal[:2] or problem[4] != normal[4], (theme, badge, problem)
        app.action_show_pane("arbitration")
        await wait_for(pilot, lambda: app.active_pane == "arbitration")
        cases = app.query_one("#cases-form")
        cases._say("the venue refused the read")
        await pilot.pause()
        problem = look_of(app, "refused: ")
        normal = look_of(app, "the venue refused the read")
        assert problem[:2] != normal[:2] or problem[4] != normal[4], (theme, normal, problem)


async def test_no_color_keeps_a_confirm_that_is_off_in_words(monkeypatch):
    """With NO_COLOR a disabled button looks like an enabled one: its label says so."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = plain_app()
    assert app.no_color
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.deals.run_deal_action("reveal", DEAL)
        await wait_for(pilot, lambda: gate_open(app), what="the reveal gate")
        await pilot.pause()
        confirm = app.screen.query_one("#gate-confirm")
        assert confirm.disabled and f"Confirm{NOT_YET}" in screen_text(app)
        await pilot.press(*"abcd")
        await wait_for(pilot, lambda: not confirm.disabled)
        await pilot.pause()
        assert NOT_YET not in screen_text(app) and "Confirm" in screen_text(app)


async def test_every_referee_gate_fits_80x24_with_its_buttons():
    """The longest gates (facts wrapping, blockers, the code field) keep their buttons on
    screen at 80x24, above the footer."""
    from tclk_tui.engine.gates import GateFact, GateRequest, code_prompt

    long = "a sentence the engine wrote that wraps at eighty columns " * 3
    request = GateRequest(action="arbiter-withhold", deal_id="0x" + "c1" * 32,
                          contract="0x" + "ab" * 32,
                          facts=tuple(GateFact(f"fact {n}", None, long) for n in range(9)),
                          blockers=(long, long, long), confirm_code="abab",
                          prompt=code_prompt("abab", digits_of="contract id"))
    app = plain_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.open_dialog(GateScreen(request, lambda *_: None))
        await wait_for(pilot, lambda: gate_open(app), what="the gate")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        for selector in ("#gate-cancel", "#gate-confirm", "#gate-code"):
            region = app.screen.query_one(selector).region
            assert region.height > 0 and region.y >= 0 and region.bottom <= 23, selector
            assert region.right <= 80
        assert "Back out" in lines[app.screen.query_one("#gate-cancel").region.y]
