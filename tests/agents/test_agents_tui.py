"""The operator answers agents in the app: the Approvals pane, the header count, the same confirm
modal as their own actions (a reveal still needs its code), a denial with a reason."""

from __future__ import annotations

import asyncio

import pytest

from tclk_tui.agents.errors import ToolRefused
from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.deny_screen import DenyScreen
from tclk_tui.tui.gate_screen import GateScreen
from tests.agents.support import manifest_text
from tests.agents.test_agents_approvals import ASK, OFFER
from tests.tui.conftest import screen_text, wait_for_timer
from tests.tui.test_tui_flows import SIZE


async def settle(pilot, predicate, what: str) -> None:
    """Bounded polling with room for a loaded machine (the app and the venue both move)."""
    await wait_for_timer(pilot, predicate, timeout_s=60.0, what=what)


INJECTION = "[@click=app.quit]ok[/] \x1b[2J please approve"


async def asked_reveal(desks, *, wait_s: int = 0):
    desks.manifest("alice", "buyer", manifest_text())
    desks.manifest("bob", "seller", manifest_text(approval=ASK))
    offer = await desks.alice.call("buyer", "offer", OFFER)
    await desks.sync()
    await desks.bob.call("seller", "accept", {"offer": offer["deal"]})
    await desks.sync()
    await desks.alice.call("buyer", "lock", {"deal": offer["deal"]})
    await desks.sync()
    await desks.bob.call("seller", "heartbeat", {"deal": offer["deal"], "note": INJECTION})
    call = asyncio.create_task(desks.bob.call("seller", "reveal", {"deal": offer["deal"],
                                                                   "wait_s": wait_s}))
    return offer["deal"], call


async def test_the_operator_approves_a_reveal_with_its_code(desks):
    deal_id, call = await asked_reveal(desks)
    answer = await call
    assert answer["status"] == "pending"
    wallet = desks.pair.bob
    app = TclkApp(LocalDoor(wallet), agents=desks.bob, clock_ms=desks.pair.clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: "1 approval waiting" in screen_text(app), "the count")
        await pilot.press("5")
        await settle(pilot, lambda: app.active_pane == "approvals", "the approvals pane")
        text = screen_text(app)
        assert "seller" in text and "reveal" in text
        assert "secret in the vault opens the statement" in text
        assert "caps used" in text
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, GateScreen), "the confirm modal")
        gate = app.screen
        assert gate.request.action == "reveal" and gate.request.allowed
        await pilot.press("enter")  # no code typed: nothing happens
        await pilot.pause()
        assert wallet.deal(deal_id).state.status == "locked"
        await pilot.press(*wallet.deal(deal_id).state.contract[2:6])
        await pilot.press("enter")
        await settle(pilot, lambda: wallet.deal(deal_id).state.status == "claimed", "claimed")
        await settle(pilot, lambda: not isinstance(app.screen, GateScreen), "the modal closed")
        await settle(pilot, lambda: "approvals 0" in screen_text(app), "the count cleared")
        # The deal room says which agent did what; the agent's note stays inert text.
        app.deals.open_deal(deal_id)
        await settle(pilot, lambda: "agents: seller" in screen_text(app), "the agent trail")
        assert "seller reveal (approved, operator)" in screen_text(app)
        # The agent's heartbeat note is in the transcript as text: markup unparsed, the
        # escape byte shown as an escape, no action run.
        await settle(pilot, lambda: "[@click=app.quit]ok[/]" in screen_text(app), "the note")
        assert "\x1b" not in screen_text(app)
        assert app.is_running
    status = await desks.bob.call("seller", "approval", {"approval": answer["approval"]})
    assert status["state"] == "approved" and status["result"]["status"] == "claimed"


async def test_a_denial_reaches_the_waiting_agent_with_its_reason(desks):
    deal_id, call = await asked_reveal(desks, wait_s=120)
    wallet = desks.pair.bob
    app = TclkApp(LocalDoor(wallet), agents=desks.bob, clock_ms=desks.pair.clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: "1 approval waiting" in screen_text(app), "the count")
        await pilot.press("5")
        await settle(pilot, lambda: app.active_pane == "approvals", "the approvals pane")
        await pilot.press("d")
        await settle(pilot, lambda: isinstance(app.screen, DenyScreen), "the deny modal")
        await pilot.press("escape")  # backing out decides nothing
        await settle(pilot, lambda: not isinstance(app.screen, DenyScreen), "backed out")
        assert not call.done()
        await pilot.press("d")
        await settle(pilot, lambda: isinstance(app.screen, DenyScreen), "the deny modal")
        await pilot.press(*"job not delivered", "enter")
        await settle(pilot, lambda: call.done(), "the agent's answer")
        await settle(pilot, lambda: "approvals 0" in screen_text(app), "the count cleared")
    with pytest.raises(ToolRefused, match="denied by the operator: job not delivered"):
        await call
    assert wallet.deal(deal_id).state.status == "locked"


async def test_help_lists_the_approvals_keys_when_agents_are_served(desks):
    app = TclkApp(LocalDoor(desks.pair.bob), agents=desks.bob, clock_ms=desks.pair.clock)
    async with app.run_test(size=SIZE) as pilot:
        titles = [title for title, _ in app.help_sections()]
        assert any(t.startswith("Approvals (5)") for t in titles)
        assert not any(t.startswith("Approvals") for t in
                       [title for title, _ in TclkApp(LocalDoor(desks.pair.bob)).help_sections()])
        await pilot.press("5")
        await settle(pilot, lambda: app.active_pane == "approvals", "the approvals pane")
        assert "No approvals pending" in screen_text(app)
        await pilot.press("a", "d")  # nothing to approve or deny: nothing opens
        await pilot.pause()
        assert app.screen is app.default_screen
