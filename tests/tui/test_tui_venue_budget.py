"""The venue status (`v`) shows the venue's budgets as this wallet holds them: waiting reads
in use, reads and writes left this minute, new rooms left today, as the venue's /config set
them and this wallet's share of its address."""

from __future__ import annotations

from tclk_tui.engine.door import LocalDoor
from tclk_tui.rehearsal.server import VenueConfig
from tclk_tui.tui.app import TclkApp
from tests.engine.helpers import open_wallet
from tests.tui.conftest import wait_for
from tests.tui.test_tui_flows import settle


async def test_v_shows_the_budgets_the_venue_published_as_this_wallet_shares_them(
        venue_factory, tmp_path):
    running = await venue_factory(VenueConfig(rate_limits=True, rate_read=90,
                                              max_waiters_per_ip=6, rate_rooms_per_day=8))
    wallet = await open_wallet(running.url, tmp_path, "alice", clock=lambda: 1_800_000_000_000,
                               follow=True)
    try:
        app = TclkApp(LocalDoor(wallet))
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, lambda: wallet.reads.following("tclk-offers"), "following")
            await pilot.press("v")
            await wait_for(pilot, lambda: any("budgets" in str(n.message)
                                              for n in app._notifications))
            text = next(str(n.message) for n in app._notifications
                        if "budgets" in str(n.message))
            assert "the venue's /config" in text and "1/2 of its address" in text
            assert "of 3 in use (the venue holds 6 per address)" in text
            assert "of 45 left this minute" in text and "writes 14 of 15" in text  # its note
            assert "new rooms 4 of 4 left today" in text
            assert "tclk-offers" in text  # the board holds a waiting read
    finally:
        await wallet.close()
