"""Losing the app (SIGHUP) leaves the daemon watching; the re-attached app shows what happened."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import signal
import subprocess
import threading
import time

from tclk_tui.daemon.remote import RemoteDoor
from tclk_tui.tui.app import TclkApp
from tests.daemon.conftest import cli_argv, cli_env
from tests.daemon.test_daemon_attach import SIZE, open_counterparty, payer_draft, settle

VENUE_LAG_S = 8 * 3600  # the venue stamps records 8 h back, so the deal's window is long gone


def _drain(fd: int) -> None:
    """Read the app's screen output so it never blocks on a full terminal."""
    with contextlib.suppress(OSError):
        while os.read(fd, 65536):
            pass


async def _until(predicate, what: str, timeout_s: float = 60.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not predicate():
            await asyncio.sleep(0.05)
    assert predicate(), what


async def test_sighup_the_app_then_reattach_and_see_the_new_state_and_warnings(daemon, venue):
    venue.venue.config.clock = lambda: time.time() - VENUE_LAG_S
    bob = await open_counterparty(venue.url, daemon.home)
    remote = RemoteDoor.attach(daemon.profile_dir)
    assert remote is not None
    app_proc = None
    try:
        offer = await bob.post_offer(payer_draft(refund_gap_s="21600"))
        await _until(lambda: remote.board.get(offer.deal_id) is not None, "the offer")
        await remote.run("accept", {"offer": offer.deal_id})
        assert remote.deal_view(offer.deal_id).deadlines.level == "calm"

        # The real app, on a terminal of its own, attached to the daemon.
        master, slave = pty.openpty()
        env = dict(cli_env(), TERM="xterm-256color", COLUMNS="120", LINES="40")
        app_proc = subprocess.Popen(cli_argv(venue.url, daemon.home, "alice"), stdin=slave,
                                    stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        threading.Thread(target=_drain, args=(master,), daemon=True).start()
        await _until(lambda: daemon.client().call("daemon.status")["subscribers"] >= 1,
                     "the app attached and following events")

        app_proc.send_signal(signal.SIGHUP)  # the SSH session drops
        await _until(lambda: app_proc.poll() is not None, "the app gone")
        os.close(master)
        with daemon.client() as client:
            assert client.call("daemon.status")["pid"] == daemon.proc.pid  # still watching

        # Meanwhile the counterparty locks: the daemon folds it in and warns.
        await _until(lambda: bob.deal(offer.deal_id).state.status == "accepted", "bob sees it")
        deal = bob.deal(offer.deal_id)
        await deal.confirm(deal.request_lock("paper"))
        await _until(lambda: remote.deal_view(offer.deal_id).status == "locked", "locked")
    finally:
        await remote.close()
        if app_proc is not None and app_proc.poll() is None:
            app_proc.kill()
            app_proc.wait(timeout=30)

    try:
        again = RemoteDoor.attach(daemon.profile_dir)
        assert again is not None
        again.start()
        app = TclkApp(again)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: any("reveal before claim by" in n.message
                                            for n in app._notifications),
                         "the warning raised while no app was attached")
            await pilot.press("2")
            await settle(pilot, lambda: app.deal_room.view is not None
                         and app.deal_room.view.status == "locked", "the new state")
            assert again.replayed > 0
        await again.close()
    finally:
        await bob.close()
    log = (daemon.profile_dir / "tclk-tui.log").read_text()
    assert "deadline soon for deal" in log and "reveal before claimByMs" in log
