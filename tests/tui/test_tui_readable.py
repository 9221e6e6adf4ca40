"""Readable everywhere: on a 16-colour terminal (`TERM=screen`) no text is drawn in its own
background's colour, in any bundled theme, on any pane or main dialog.

Textual draws in true colour and Rich downgrades every style to the terminal's palette when it
writes the strip (`Strip.render_style` with the console's colour system); two shades that are
distinct in true colour can land on the same one of the 16, and the text vanishes. The check
below does that same downgrade on every cell the screen draws.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rich.color import ColorSystem
from textual.errors import NoWidget
from textual.widgets import Checkbox

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.record_screen import RecordScreen
from tclk_tui.tui.themes import load_themes
from tests.tui.conftest import wait_for
from tests.tui.contract_wallet import Clock, ContractWallet, make_deal, make_offer

BUNDLED = tuple(theme.name for theme in load_themes().themes)
DEAL = "0x" + "d1" * 32


def _decoration(char: str) -> bool:
    """Box drawing and blocks (tab underlines, rules, borders) carry no words."""
    return char.isspace() or 0x2500 <= ord(char) <= 0x259F


def invisible_text(app: TclkApp) -> list[str]:
    """Every run of text on the active screen whose colour, brought down to the 16-colour
    palette, is its background's. Cells of the dimmed screens behind a dialog are not read:
    they are meant to recede."""
    screen = app.screen
    found: list[str] = []
    for y, strip in enumerate(screen._compositor.render_strips()):
        x = 0
        for segment in strip:
            text, style = segment.text, segment.style
            start, x = x, x + segment.cell_length
            if style is None or all(_decoration(char) for char in text):
                continue
            try:
                widget, _ = screen.get_widget_at(start, y)
            except NoWidget:
                continue
            if widget is screen and screen.is_modal:
                continue
            if isinstance(widget, Checkbox) and not widget.value and text == "X":
                continue  # an unticked box's X is drawn in the box's colour on purpose
            fg, bg = style.color, style.bgcolor
            if fg is None or bg is None:
                continue
            low_fg = fg.downgrade(ColorSystem.STANDARD).number
            low_bg = bg.downgrade(ColorSystem.STANDARD).number
            if low_fg == low_bg:
                found.append(f"row {y} {type(widget).__name__}: {text.strip()!r} "
                             f"({fg.triplet and fg.triplet.hex} on "
                             f"{bg.triplet and bg.triplet.hex}, both colour {low_fg})")
    return found


def fixed_app(theme: str) -> TclkApp:
    clock = Clock()
    rows = [make_offer(index) for index in range(30)]
    rows[3] = make_offer(3, mine=True)
    wallet = ContractWallet(rows=rows, clock=clock,
                            deals=[make_deal(DEAL),
                                   make_deal("0x" + "e2" * 32, status="accepted", role="payer",
                                             actions=frozenset({"lock", "cancel"}))],
                            rejected={"bad signature": 3, "not a tclk/1 frame": 12},
                            referee=True)
    return TclkApp(LocalDoor(wallet), clock_ms=clock, theme=theme)


def _dialogs(app: TclkApp) -> dict[str, Callable[[], object]]:
    return {
        "offer form": app.action_new_offer,
        "accept": lambda: app.board.open_accept(app.door.board.get(make_offer(0).offer_id)),
        "reveal gate": lambda: app.deals.run_deal_action("reveal", DEAL),
        "seed backup gate": app.action_backup_seed,
        "seed restore": app.action_restore_seed,
        "rejected records": app.action_rejected,
        "help": app.action_help,
        "heartbeat": lambda: app.deals.run_deal_action("heartbeat", DEAL),
        "whole record": lambda: app.open_dialog(RecordScreen(make_deal(DEAL).records[-1])),
        "command palette": app.action_command_palette,
    }


def test_term_screen_means_16_colours(monkeypatch):
    """The premise: with TERM=screen (and no COLORTERM) the app writes 16 colours."""
    monkeypatch.setenv("TERM", "screen")
    monkeypatch.delenv("COLORTERM", raising=False)
    app = fixed_app("tclk-dark")
    assert app.console.color_system == "standard"


def test_every_bundled_theme_is_checked():
    assert {"tclk-dark", "tclk-light", "tclk-high-contrast"} <= set(BUNDLED)


@pytest.mark.parametrize("theme", BUNDLED)
async def test_no_text_in_its_background_colour_at_16_colours(theme):
    app = fixed_app(theme)
    problems: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        for pane in ("board", "deals", "vault", "arbitration"):
            app.action_show_pane(pane)
            await wait_for(pilot, lambda pane=pane: app.active_pane == pane)
            await pilot.pause()
            problems += [f"{pane}: {p}" for p in invisible_text(app)]
        app.deals.open_deal(DEAL)
        await pilot.pause()
        problems += [f"deal room: {p}" for p in invisible_text(app)]
        app.action_show_pane("board")
        await wait_for(pilot, lambda: app.active_pane == "board")
        for name, open_it in _dialogs(app).items():
            open_it()
            await wait_for(pilot, lambda: app.screen is not app.default_screen, what=name)
            await pilot.pause()
            problems += [f"{name}: {p}" for p in invisible_text(app)]
            app.pop_screen()
            await wait_for(pilot, lambda: app.screen is app.default_screen)
    assert not problems, "\n".join(problems)


def _box_glyph(app: TclkApp, box: Checkbox) -> tuple[int | None, int | None, bool]:
    """The 16-colour foreground and background of the box's X, and whether they are the same
    colour in true colour too."""
    region = box.content_region
    strip = app.screen._compositor.render_strips()[region.y]
    x = 0
    for segment in strip:
        if x >= region.x and segment.text == "X" and segment.style is not None:
            fg, bg = segment.style.color, segment.style.bgcolor
            assert fg is not None and bg is not None
            return (fg.downgrade(ColorSystem.STANDARD).number,
                    bg.downgrade(ColorSystem.STANDARD).number, fg.triplet == bg.triplet)
        x += segment.cell_length
    raise AssertionError("no X drawn for the box")


@pytest.mark.parametrize("theme", BUNDLED)
async def test_a_ticked_box_looks_ticked_and_an_unticked_one_does_not(theme):
    app = fixed_app(theme)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.action_restore_seed()
        await wait_for(pilot, lambda: app.screen.query(Checkbox), what="the restore dialog")
        box = app.screen.query_one(Checkbox)
        await pilot.pause()
        low_fg, low_bg, same = _box_glyph(app, box)
        assert same and low_fg == low_bg  # absent in every palette, not a faint X
        box.value = True
        await wait_for(pilot, lambda: _box_glyph(app, box)[0] != low_fg)
        low_fg, low_bg, same = _box_glyph(app, box)
        assert low_fg != low_bg and not same
