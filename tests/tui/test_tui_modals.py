"""Every dialog at 80x24: its own keys in its own footer, and its main button on screen."""

from collections.abc import Awaitable, Callable

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Footer

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.deny_screen import DenyScreen
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.help_screen import HelpScreen
from tclk_tui.tui.note_screen import HeartbeatScreen, ReceiptScreen
from tclk_tui.tui.offer_form import OfferFormScreen
from tclk_tui.tui.rejected_screen import RejectedScreen
from tclk_tui.tui.restore_screen import RestoreScreen
from tclk_tui.tui.secret_screen import SecretScreen
from tests.tui.conftest import gate_open, screen_text, wait_for

Open = Callable[[TclkApp, Pilot], Awaitable[None]]


async def _gate(app: TclkApp, pilot: Pilot) -> None:
    await pilot.press("2")
    await wait_for(pilot, lambda: app.deal_room.view is not None)
    await pilot.press("r")


async def _plain_gate(app: TclkApp, pilot: Pilot) -> None:
    await pilot.press("2")
    await wait_for(pilot, lambda: app.deal_room.view is not None)
    app.deals.run_deal_action("cancel", app.deal_room.view.deal_id)  # a plain yes, no code


async def _accept(app: TclkApp, pilot: Pilot) -> None:
    await pilot.press("a")


async def _offer_form(app: TclkApp, pilot: Pilot) -> None:
    await pilot.press("n")


async def _secret(app: TclkApp, pilot: Pilot) -> None:
    await pilot.press("3")
    await wait_for(pilot, lambda: app.active_pane == "vault")
    await pilot.press("b")
    await wait_for(pilot, lambda: gate_open(app), what="the gate")
    await pilot.press(*"backup", "enter")


async def _restore(app: TclkApp, pilot: Pilot) -> None:
    await pilot.press("3")
    await wait_for(pilot, lambda: app.active_pane == "vault")
    await pilot.press("t")


async def _heartbeat(app: TclkApp, pilot: Pilot) -> None:
    await pilot.press("2")
    await wait_for(pilot, lambda: app.deal_room.view is not None)
    await pilot.press("h")


async def _receipt(app: TclkApp, pilot: Pilot) -> None:
    app.deals.run_deal_action("receipt", "0x" + "d1" * 32)


async def _deny(app: TclkApp, pilot: Pilot) -> None:
    app.open_dialog(DenyScreen("scout", "reveal"))


async def _rejected(app: TclkApp, pilot: Pilot) -> None:
    await pilot.press("exclamation_mark")


async def _help(app: TclkApp, pilot: Pilot) -> None:
    await pilot.press("question_mark")


# (how to open it, its class, key and description its footer must show, its main button)
DIALOGS: dict[str, tuple[Open, type[Screen], tuple[str, ...], str | None]] = {
    # With a code to type, the field takes every letter (y included): enter confirms.
    "gate-code": (_gate, GateScreen, ("esc Back out",), "#gate-confirm"),
    "gate-yes": (_plain_gate, GateScreen, ("esc Back out", "y Confirm"), "#gate-confirm"),
    "accept": (_accept, AcceptScreen, ("esc Back out", "y Accept"), "#accept-ok"),
    "offer-form": (_offer_form, OfferFormScreen, ("esc Back out", "^s Post offer"),
                   "#form-post"),
    "secret": (_secret, SecretScreen, ("esc Close",), "#secret-close"),
    "restore": (_restore, RestoreScreen, ("esc Back out",), "#restore-ok"),
    "heartbeat": (_heartbeat, HeartbeatScreen, ("esc Back out",), "#heartbeat-send"),
    "receipt": (_receipt, ReceiptScreen, ("esc Back out", "y Post receipt"), "#receipt-post"),
    "deny": (_deny, DenyScreen, ("esc Back out",), "#deny-send"),
    "rejected": (_rejected, RejectedScreen, ("esc Close",), None),
    "help": (_help, HelpScreen, ("esc Close",), None),
}
# Keys of the panes underneath, which do nothing while a dialog is open.
MAIN_KEYS = ("New offer", "Filter", "Reverse", "Heartbeat", "Reveal", "Back up seed",
             "Restore seed")


@pytest.mark.parametrize("name", sorted(DIALOGS))
async def test_each_dialog_shows_its_own_keys_and_fits_80x24(wallet, clock, name):
    open_it, kind, keys, button = DIALOGS[name]
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_it(app, pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, kind), what=name)
        await pilot.pause()
        screen = app.screen
        assert screen.query(Footer), "the dialog has its own footer"
        lines = screen_text(app).splitlines()
        assert len(lines) == 24
        footer = lines[-1]
        for word in keys:
            assert word in footer, (word, footer)
        for word in MAIN_KEYS:
            assert word not in footer, (word, footer)
        if button is not None:
            widget = screen.query_one(button)
            region = widget.region
            assert region.width > 0 and region.height > 0
            assert region.y >= 0 and region.bottom <= 23  # above the footer row
            assert region.right <= 80
            inner = widget.content_region
            assert str(widget.label) in lines[inner.y][region.x:region.right]
