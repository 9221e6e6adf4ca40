"""Screens as the operator sees them, pinned clock and fixed data, in two sizes and themes.

Regenerate after a deliberate change with `python3 -m pytest tests/tui --snapshot-update` and
look at the SVGs before committing them.
"""

import pytest

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
    return TclkApp(wallet, clock_ms=clock, theme=theme)


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
        pilot.app.run_deal_action("reveal", "0x" + "d1" * 32)
        await pilot.pause()

    assert snap_compare(fixed_app("tclk-dark"), terminal_size=(80, 24), run_before=open_gate,
                        press=["a", "b"])


def test_offer_form_80x24(snap_compare):
    async def open_form(pilot):
        pilot.app.action_new_offer()
        await pilot.pause()

    assert snap_compare(fixed_app("tclk-dark"), terminal_size=(80, 24), run_before=open_form,
                        press=["1", "2", "x"])
