"""An app attached to a running daemon answers the agents' approvals the daemon holds."""

from __future__ import annotations

import asyncio

from tclk_tui.agents.remote_desk import RemoteDesk
from tclk_tui.daemon.remote import RemoteDoor
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.gate_screen import GateScreen
from tests.agents.support import manifest_text
from tests.daemon.conftest import daemon, home  # noqa: F401 - the daemon process fixtures
from tests.tui.conftest import screen_text, wait_for_timer
from tests.tui.test_tui_flows import SIZE


async def settle(pilot, predicate, what: str) -> None:
    """Bounded polling with room for a loaded machine (the app and the venue both move)."""
    await wait_for_timer(pilot, predicate, timeout_s=60.0, what=what)


OFFER = {"role": "payer", "amount": "700", "asset": "FLOP", "rails": "paper"}


def _call(daemon, tool, params):  # noqa: F811
    with daemon.client() as client:
        return client.call("agents.call", {"agent": "bot", "tool": tool, "params": params})


async def test_the_attached_app_approves_what_the_daemon_holds(daemon):  # noqa: F811
    folder = daemon.profile_dir / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(manifest_text(
        approval='lock = "auto"\nreveal = "ask"\nrefund = "auto"\ncancel = "ask"\n'))
    offer = await asyncio.to_thread(_call, daemon, "offer", OFFER)
    pending = await asyncio.to_thread(_call, daemon, "cancel", {"deal": offer["deal"]})
    assert pending["status"] == "pending"
    remote = RemoteDoor.attach(daemon.profile_dir)
    assert remote is not None
    desk = RemoteDesk.attach(remote)
    assert desk is not None and [r.id for r in desk.pending()] == [pending["approval"]]
    remote.start()
    try:
        app = TclkApp(remote, agents=desk)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot, lambda: "1 approval waiting" in screen_text(app), "the count")
            await pilot.press("5")
            await settle(pilot, lambda: app.active_pane == "approvals", "the pane")
            assert "bot" in screen_text(app) and "cancel" in screen_text(app)
            await pilot.press("a")
            await settle(pilot, lambda: isinstance(app.screen, GateScreen), "the modal")
            await pilot.press("y")
            await settle(pilot, lambda: "approvals 0" in screen_text(app), "answered")
        status = await asyncio.to_thread(_call, daemon, "approval",
                                         {"approval": pending["approval"]})
        assert status["state"] == "approved" and status["result"]["status"] == "cancelled"
        trail = desk.ledger.calls(deal_id=offer["deal"])
        assert ("cancel", "operator") in [(c.tool, c.transport) for c in trail]
    finally:
        await remote.close()
