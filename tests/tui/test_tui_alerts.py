"""Alerts in the app: what was raised while no screen was attached is shown on attach, and an
alert raised while attached rings the terminal bell; each is shown once."""

from __future__ import annotations

from pathlib import Path

import tclk_tui.tui.app
from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.events import Alert
from tclk_tui.tui.app import TclkApp
from tests.tui.conftest import wait_for


class CountingBells(TclkApp):
    CSS_PATH = str(Path(tclk_tui.tui.app.__file__).with_name("app.tcss"))
    bells = 0

    def bell(self) -> None:
        self.bells += 1
        super().bell()


def _alert(key: str, text: str) -> Alert:
    return Alert(key=key, kind="deadline", text=text, deal_id="0x" + "d1" * 32, raised_ms=1)


def _shown(app: TclkApp) -> list[str]:
    return [str(n.message) for n in app._notifications if "ALERT" in str(n.message)]


async def test_alerts_raised_while_away_are_shown_on_attach_and_new_ones_ring(wallet, clock):
    wallet.alerts = [_alert("a", "deal 0xd1d1…: soon: your last safe moment to reveal is "
                                 "13:44 UTC (in 25m00s)")]
    app = CountingBells(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: _shown(app), what="the alert from while away")
        assert "last safe moment to reveal" in _shown(app)[0] and app.bells == 1
        wallet.alerts = [_alert("b", "agent bot waits for your approval to reveal")]
        wallet.events.publish(wallet.alerts[0])
        await wait_for(pilot, lambda: len(_shown(app)) == 2, what="the new alert")
        assert app.bells == 2 and "approval" in _shown(app)[1]
        wallet.events.publish(_alert("b", "the same alert again"))  # already taken: not again
        await pilot.pause()
        assert len(_shown(app)) == 2 and app.bells == 2
