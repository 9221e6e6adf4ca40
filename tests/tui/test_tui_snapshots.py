"""Screens as the operator sees them, pinned clock and fixed data, in two sizes and themes.

Regenerate after a deliberate change with `python3 -m pytest tests/tui --snapshot-update` and
look at the SVGs before committing them.
"""

from pathlib import Path

import pytest

import tclk_tui.tui.app as app_module
from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.app import TclkApp
from tests.tui.conftest import wait_for
from tests.tui.contract_wallet import Clock, ContractWallet, make_deal, make_offer

PANES = ("board", "deals", "vault", "arbitration")
SIZES = ((80, 24), (120, 40))
THEMES = ("tclk-dark", "tclk-light")


def fixed_app(theme: str) -> TclkApp:
    clock = Clock()
    rows = [make_offer(index) for index in range(60)]
    rows[3] = make_offer(3, mine=True)
    rows[5] = make_offer(5, status="accepted")
    wallet = ContractWallet(rows=rows, clock=clock,
                            deals=[make_deal(),
                                   make_deal("0x" + "e2" * 32, status="accepted", role="payer",
                                             actions=frozenset({"lock", "cancel"}))],
                            rejected={"bad signature": 3, "not a tclk/1 frame": 12})
    return TclkApp(LocalDoor(wallet), clock_ms=clock, theme=theme)


async def settle_on(pilot, pane: str) -> None:
    """Switch pane once the app has finished starting (the tabs pick their initial pane)."""
    await pilot.pause()
    pilot.app.action_show_pane(pane)
    await wait_for(pilot, lambda: pilot.app.active_pane == pane)
    await pilot.pause()


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("pane", PANES)
def test_main_screens(snap_compare, pane, size, theme):
    async def show(pilot):
        await settle_on(pilot, pane)

    assert snap_compare(fixed_app(theme), terminal_size=size, run_before=show)


def test_reveal_gate_80x24(snap_compare):
    async def open_gate(pilot):
        await settle_on(pilot, "deals")
        pilot.app.deals.run_deal_action("reveal", "0x" + "d1" * 32)
        await pilot.pause()

    assert snap_compare(fixed_app("tclk-dark"), terminal_size=(80, 24), run_before=open_gate,
                        press=["a", "b"])


def test_offer_form_80x24(snap_compare):
    async def open_form(pilot):
        pilot.app.action_new_offer()
        await pilot.pause()

    assert snap_compare(fixed_app("tclk-dark"), terminal_size=(80, 24), run_before=open_form,
                        press=["1", "2", "x"])


class SixteenColours(TclkApp):
    """The app as a 16-colour terminal (TERM=screen) shows it: every cell's colours brought
    down to the standard palette, as Rich does when it writes to such a terminal."""

    CSS_PATH = str(Path(app_module.__file__).with_name(TclkApp.CSS_PATH))

    def export_screenshot(self, *, title: str | None = None, simplify: bool = False) -> str:
        import io

        from rich.color import ColorSystem
        from rich.console import Console
        from rich.segment import Segment
        from rich.style import Style

        def low(style: Style | None) -> Style | None:
            if style is None:
                return None
            colors = {name: color.downgrade(ColorSystem.STANDARD)
                      for name, color in (("color", style.color), ("bgcolor", style.bgcolor))
                      if color is not None}
            return style + Style(**colors) if colors else style

        width, height = self.size
        console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                          color_system="truecolor", record=True, legacy_windows=False,
                          safe_box=False)
        console.print(self.screen._compositor.render_update(
            full=True, screen_stack=self._background_screens, simplify=simplify))
        console._record_buffer[:] = [Segment(s.text, low(s.style), s.control)
                                     for s in console._record_buffer]
        return console.export_svg(title=title or self.title)


def sixteen_colour_app() -> TclkApp:
    clock = Clock()
    rows = [make_offer(index) for index in range(60)]
    rows[3] = make_offer(3, mine=True)
    wallet = ContractWallet(rows=rows, clock=clock, referee=True,
                            deals=[make_deal(), make_deal("0x" + "e2" * 32, status="accepted",
                                                          role="payer",
                                                          actions=frozenset({"lock",
                                                                             "cancel"}))],
                            rejected={"bad signature": 3})
    return SixteenColours(LocalDoor(wallet), clock_ms=clock, theme="tclk-dark")


@pytest.mark.parametrize("pane", ("board", "deals", "arbitration"))
def test_16_colours_80x24(snap_compare, pane):
    async def show(pilot):
        await settle_on(pilot, pane)

    assert snap_compare(sixteen_colour_app(), terminal_size=(80, 24), run_before=show)


def test_16_colours_withhold_gate_80x24(snap_compare):
    async def open_gate(pilot):
        await settle_on(pilot, "arbitration")
        await pilot.press("w")
        await wait_for(pilot, lambda: pilot.app.screen.focused is not None
                       and pilot.app.screen is not pilot.app.default_screen)
        await pilot.pause()

    assert snap_compare(sixteen_colour_app(), terminal_size=(80, 24), run_before=open_gate)
