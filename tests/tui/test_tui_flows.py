"""Whole flows through the app against the real engine, the rehearsal venue and the scripted
demo counterparty (all in-process, loopback only).

The engine is imported inside the fixture, so collecting this file never needs it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Button, Input

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.arb_verify import VerifyForm
from tclk_tui.tui.arb_vote import VoteForm
from tclk_tui.tui.arbitration_pane import ArbitrationPane
from tclk_tui.tui.header_bar import HeaderBar
from tclk_tui.tui.offer_form import OfferFormScreen
from tclk_tui.tui.offer_table import OfferTable
from tclk_tui.tui.secret_screen import SecretScreen
from tclk_tui.tui.vault_pane import VaultPane
from tests.tui.conftest import dialog_open, gate_open, screen_text

SIZE = (120, 40)
TIMEOUT_S = 20.0




async def settle(pilot: Pilot, predicate: Callable[[], object], what: str) -> None:
    """Poll `predicate` while the app and the venue make progress, up to TIMEOUT_S."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT_S
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause()
        await asyncio.sleep(0.02)


async def fill_offer_form(pilot: Pilot, form: OfferFormScreen, *, amount: str) -> None:
    """Type a clean payer offer on paper and wait until the form lets it be posted."""
    form.query_one("#field-amount", Input).value = amount
    form.query_one("#field-asset", Input).value = "FLOP"
    form.query_one("#field-rails", Input).value = "paper"
    await settle(pilot, lambda: not form.query_one("#form-post", Button).disabled,
                 "a clean draft")


def agent_hash_offer(app: TclkApp) -> Any:
    table = app.query_one(OfferTable)
    rows = [table.row_at(i) for i in range(table.row_count)]
    candidates = [row for row in rows if not row.mine and row.lock == "hash"]
    return min(candidates, key=lambda row: row.seq) if candidates else None


async def test_board_accept_and_reveal_through_the_app(demo):
    wallet = demo.wallet
    app = TclkApp(LocalDoor(wallet))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: agent_hash_offer(app) is not None, "the agent's offers")
        target = agent_hash_offer(app)
        app.query_one(OfferTable).move_to(target.offer_id)
        app.query_one(OfferTable).focus()
        await pilot.press("a")
        await settle(pilot, lambda: dialog_open(app, AcceptScreen), "accept form")
        await pilot.click("#accept-ok")
        await settle(pilot, lambda: app.active_pane == "deals", "the deal room")
        deal_id = target.offer_id
        assert app.deal_room.view.deal_id == deal_id

        # The agent locks on the paper rail; the wallet verifies the lock on the rail.
        await settle(pilot, lambda: wallet.deal(deal_id).request_reveal().allowed,
                     "a verified lock")
        await settle(pilot, lambda: "reveal" in app.deal_room.view.actions, "reveal binding")
        app.deal_room.query_one("#transcript").focus()
        await pilot.press("r")
        await settle(pilot, lambda: gate_open(app), "the reveal gate")
        gate = app.screen
        assert gate.request.action == "reveal" and gate.request.confirm_code
        await pilot.press(*app.deal_room.view.contract[2:6])
        await settle(pilot, lambda: not gate.query_one("#gate-confirm", Button).disabled,
                     "confirm enabled")
        await pilot.press("enter")
        await settle(pilot, lambda: app.deal_room.view.status == "claimed", "claimed")
        assert all(record.verified for record in app.deal_room.view.records)
        await settle(pilot, lambda: "CLAIMED" in screen_text(app), "the room redrawn")


async def test_offer_form_validates_with_the_engine_and_posts(demo):
    wallet = demo.wallet
    app = TclkApp(LocalDoor(wallet))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await settle(pilot, lambda: dialog_open(app, OfferFormScreen), "offer form")
        form = app.screen
        form.query_one("#field-amount", Input).value = "0"
        await settle(pilot, lambda: form.query_one("#problem-amount").display, "a problem")
        assert form.query_one("#form-post", Button).disabled
        await fill_offer_form(pilot, form, amount="4200")
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: app.active_pane == "deals", "the new deal")
        view = app.deal_room.view
        assert view.amount == "4200"
        # The demo agent may accept it at once, so look it up by id, whatever its status.
        await settle(pilot, lambda: (row := wallet.board.get(view.deal_id)) is not None
                     and row.mine, "our offer on the board")


async def test_header_follows_the_venue(demo):
    app = TclkApp(LocalDoor(demo.wallet))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: app.query_one(HeaderBar).status.state == "following",
                     "following")
        header = screen_text(app).splitlines()[0]
        assert "following" in header and demo.wallet.profile in header


async def test_vault_backup_is_shown_once(demo):
    app = TclkApp(LocalDoor(demo.wallet))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        await settle(pilot, lambda: app.query_one(VaultPane).status is not None, "vault")
        assert app.query_one(VaultPane).status.healthy
        await pilot.press("b")
        await settle(pilot, lambda: gate_open(app), "backup gate")
        await pilot.press(*app.screen.request.confirm_code)
        await pilot.click("#gate-confirm")
        await settle(pilot, lambda: isinstance(app.screen, SecretScreen), "the seed")
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, SecretScreen), "closed")


async def test_vote_commit_and_verify_through_the_desk(demo):
    app = TclkApp(LocalDoor(demo.wallet))
    async with app.run_test(size=SIZE) as pilot:
        app.action_show_pane("arbitration")
        pane = app.query_one(ArbitrationPane)
        pane.show_section("vote")
        await pilot.pause()
        contract = "0x" + "ab" * 32
        app.query_one("#vote-contract", Input).value = contract
        app.query_one("#vote-verdict", Input).value = "claimed"
        app.query_one(VoteForm).commit_vote()
        # The salt is a secret: the commit-vote command's gate comes first, a plain yes.
        await settle(pilot, lambda: gate_open(app), "the commit-vote gate")
        assert app.screen.request.action == "vote-commit"
        await pilot.press("y")
        # The salt is shown once, in the secret screen; the juror copies it from there.
        await settle(pilot, lambda: isinstance(app.screen, SecretScreen)
                     and app.screen.query("#secret-value"), "the salt")
        commitment = app.query_one(VoteForm).commitment
        assert commitment is not None
        salt = app.screen.query_one("#secret-value").render().plain
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, SecretScreen), "closed")
        assert salt not in screen_text(app)
        pane.show_section("verify")
        await pilot.pause()
        for name, value in (("commitment", commitment), ("contract", contract),
                            ("verdict", "claimed"), ("salt", salt)):
            app.query_one(f"#verify-{name}", Input).value = value
        app.query_one(VerifyForm).verify()
        await settle(pilot, lambda: app.query_one(VerifyForm).verdict_ok is not None,
                     "the verify-vote answer")
        assert app.query_one(VerifyForm).verdict_ok is True
