"""No key sequence ends the app: seeded bursts of keys over every pane and every dialog.

Keys are posted straight to the app's queue, as the terminal driver posts them, so a burst
lands while the app is still handling the keys before it: Enter twice on a focused Back out,
Esc and Enter together, keys while a dialog opens or closes. Each place is opened first, then
rounds of bursts from a seeded generator hit it (and wherever the keys lead); between bursts
the app is let to settle a random number of steps, sometimes none. Any exception the app meets
fails the test (Textual re-raises it when the pilot closes), and so does an engine call the app
could only report as an unexpected error. Seeds are fixed, so a failure replays exactly.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from textual import events
from textual.pilot import Pilot

from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.gates import GateRequest
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.approvals_pane import ApprovalsPane
from tclk_tui.tui.record_screen import RecordScreen
from tests.tui.conftest import wait_for
from tests.tui.contract_wallet import (
    NOW_MS,
    Clock,
    ContractWallet,
    gate_request,
    make_deal,
    make_offer,
)

PAYEE_DEAL = "0x" + "d1" * 32
PAYER_DEAL = "0x" + "e2" * 32
DONE_DEAL = "0x" + "f3" * 32
# Every key a hand can reach that does something somewhere, Enter and Esc weighted up; never
# ctrl+q or ctrl+c, which end the app on purpose, nor ctrl+t (a theme change restyles every
# widget, costing more than the rest together, and the theme tests cover it).
KEYS = (["enter"] * 6 + ["escape"] * 4 + ["tab"] * 3 + ["y"] * 3
        + ["shift+tab", "space", "up", "down", "left", "right", "home", "end", "pageup",
           "pagedown", "backspace", "delete", "ctrl+s", "ctrl+p", "question_mark",
           "exclamation_mark", "slash", "f1", "1", "2", "3", "4", "5", "0", "a", "b", "c",
           "d", "e", "f", "g", "h", "l", "m", "n", "o", "r", "s", "t", "v", "w", "x", "z"])
# Two seeds a place by default; TCLK_KEY_BURST_SEEDS=200 runs a longer search with the same
# generator (its first seeds are these).
SEEDS = range(int(os.environ.get("TCLK_KEY_BURST_SEEDS", "2")))
ROUNDS = 4


@dataclass
class Approval:
    id: str
    agent: str
    tool: str
    deal_id: str
    params: dict
    facts: dict
    state: str = "pending"
    created_ms: int = NOW_MS
    reason: str = ""


@dataclass
class Calls:
    tool: str
    agent: str = "scout"
    decision: str = "ask"
    transport: str = "room"


@dataclass
class AgentsDouble:
    """The agents' desk as the app sees it: two approvals waiting, answered in memory."""

    wallet: ContractWallet
    rows: dict[str, Approval] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for index, tool in enumerate(("reveal", "cancel")):
            row = Approval(f"ap{index}", "scout", tool, PAYEE_DEAL, {"deal": PAYEE_DEAL},
                           {"facts": [{"label": "lock", "ok": True, "detail": "verified"}]})
            self.rows[row.id] = row
        self.ledger = self

    def calls(self, *, deal_id: str, limit: int) -> list[Calls]:
        return [Calls("reveal")]

    def subscribe(self, callback: Callable[[], None]) -> None:
        self._callback = callback

    def pending(self) -> list[Approval]:
        return [row for row in self.rows.values() if row.state == "pending"]

    def approval(self, approval_id: str) -> Approval | None:
        return self.rows.get(approval_id)

    async def refresh(self) -> None:
        return None

    async def approve(self, approval_id: str, typed: str | None, *,
                      acknowledge_late: bool = False) -> Approval:
        row = self.rows[approval_id]
        row.state = "approved"
        return row

    def deny(self, approval_id: str, reason: str) -> None:
        self.rows[approval_id].state = "denied"


def fuzz_app() -> TclkApp:
    clock = Clock()
    rows = [make_offer(index) for index in range(12)]
    rows[3] = make_offer(3, mine=True)
    wallet = ContractWallet(rows=rows, clock=clock, deals=[
        make_deal(PAYEE_DEAL),
        make_deal(PAYER_DEAL, status="accepted", role="payer",
                  actions=frozenset({"lock", "cancel", "heartbeat"})),
        make_deal(DONE_DEAL, status="claimed", actions=frozenset({"receipt"})),
    ], rejected={"bad signature": 3}, referee=True)
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, agents=AgentsDouble(wallet))

    async def stay() -> None:
        """The palette's Quit, reached by a burst, is the operator's choice: not a crash."""

    app.action_quit = stay  # type: ignore[method-assign]
    return app


Open = Callable[[TclkApp], object]


def _deal_action(action: str, deal_id: str) -> Open:
    return lambda app: app.deals.run_deal_action(action, deal_id)


def _pane(name: str) -> Open:
    return lambda app: app.action_show_pane(name)


def _gate(request: GateRequest) -> Open:
    from tclk_tui.tui.gate_screen import GateScreen

    async def perform(newest: GateRequest, typed: str | None, late: bool) -> None:
        return None

    return lambda app: app.open_dialog(GateScreen(request, perform, refresh=lambda: request))


def _case_key(app: TclkApp, key: str, row: int) -> None:
    """The Arbiter pane's Cases list with a case highlighted, then the act's key."""
    app.action_show_pane("arbitration")
    app.query_one("#cases-table").move_cursor(row=row)
    burst(app, [key])


def _commit(app: TclkApp) -> None:
    app.action_show_pane("arbitration")
    app.query_one("#round-verdict").value = "release"
    burst(app, ["c"])


PLACES: dict[str, Open] = {
    "board": _pane("board"),
    "deals": _pane("deals"),
    "vault": _pane("vault"),
    "arbiter": _pane("arbitration"),
    "approvals": _pane("approvals"),
    "reveal gate (a code)": _deal_action("reveal", PAYEE_DEAL),
    "lock gate (a plain yes)": _deal_action("lock", PAYER_DEAL),
    "late reveal gate": _gate(gate_request(late=True)),
    "blocked gate": _gate(gate_request(blockers=("the lock is not verified",))),
    "heartbeat": _deal_action("heartbeat", PAYER_DEAL),
    "receipt": _deal_action("receipt", DONE_DEAL),
    "accept": lambda app: app.board.open_accept(app.door.board.get(make_offer(0).offer_id)),
    "new offer": lambda app: app.action_new_offer(),
    "rejected lines": lambda app: app.action_rejected(),
    "whole record": lambda app: app.open_dialog(RecordScreen(make_deal().records[0])),
    "seed backup": lambda app: app.action_backup_seed(),
    "secret reveal": lambda app: app.vault.reveal_secret(app.door.held_secrets()[0]),
    "seed restore": lambda app: app.action_restore_seed(),
    "help": lambda app: app.action_help(),
    "command palette": lambda app: app.action_command_palette(),
    "arbiter: mint": lambda app: _case_key(app, "m", 1),
    "arbiter: release": lambda app: _case_key(app, "r", 0),
    "arbiter: withhold": lambda app: _case_key(app, "w", 0),
    "arbiter: commit vote": lambda app: _commit(app),
    "arbiter: open vote": lambda app: _case_key(app, "o", 1),
    "approve": lambda app: app.post_message(ApprovalsPane.ApproveRequested("ap0")),
    "deny": lambda app: app.post_message(ApprovalsPane.DenyRequested("ap1")),
}


def burst(app: TclkApp, keys: list[str]) -> None:
    for key in keys:
        app.post_message(events.Key(key, key if len(key) == 1 else None))


async def back_to_main(pilot: Pilot) -> None:
    """Close whatever the last burst left open, as a person would: Esc until the main screen."""
    app = pilot.app
    for _ in range(20):
        if app.screen is app.default_screen:
            return
        await pilot.press("escape")
        await pilot.pause(0)
    raise AssertionError(f"Esc does not leave {app.screen!r}")


async def hammer(pilot: Pilot, rng: random.Random) -> None:
    for _ in range(ROUNDS):
        burst(pilot.app, [rng.choice(KEYS) for _ in range(rng.randint(1, 6))])
        for _ in range(rng.choice((0, 0, 1, 2, 5))):
            await pilot.pause(0)  # every message queued so far handled, no idle wait


def unexpected(app: TclkApp) -> list[str]:
    return [n.message for n in app._notifications if "unexpected error" in n.message]


# Places visited by one app each, so the suite starts a few apps rather than one per place.
GROUPS = {
    "panes": ("board", "deals", "vault", "arbiter", "approvals", "command palette", "help"),
    "deal dialogs": ("reveal gate (a code)", "lock gate (a plain yes)", "late reveal gate",
                     "blocked gate", "heartbeat", "receipt", "whole record"),
    "board dialogs": ("accept", "new offer", "rejected lines"),
    "vault and agents": ("seed backup", "secret reveal", "seed restore", "approve", "deny"),
    "arbiter": ("arbiter: mint", "arbiter: release", "arbiter: withhold",
                "arbiter: commit vote", "arbiter: open vote"),
}


def test_every_place_is_in_a_group():
    grouped = [place for places in GROUPS.values() for place in places]
    assert sorted(grouped) == sorted(PLACES)


@pytest.mark.parametrize("group", sorted(GROUPS))
async def test_no_burst_of_keys_ends_the_app(group):
    app = fuzz_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for place in GROUPS[group]:
            for seed in SEEDS:
                rng = random.Random(f"{place}/{seed}")
                await back_to_main(pilot)
                app.action_show_pane("board")
                await pilot.pause(0)
                PLACES[place](app)
                await hammer(pilot, rng)
                await pilot.pause()
                assert app.is_running, f"{place}, seed {seed}: the app ended"
                assert not unexpected(app), (place, seed, unexpected(app))
    assert app.return_code in (None, 0), (group, app.return_code)


# -- the crashes this file was written for, one by one ------------------------------------------

BACK_OUT = {
    "lock gate": (_deal_action("lock", PAYER_DEAL), "#gate-cancel"),
    "accept": (PLACES["accept"], "#accept-cancel"),
    "receipt": (PLACES["receipt"], "#receipt-cancel"),
    "heartbeat": (PLACES["heartbeat"], "#heartbeat-cancel"),
    "new offer": (PLACES["new offer"], "#form-cancel"),
}


@pytest.mark.parametrize("name", sorted(BACK_OUT))
async def test_enter_twice_on_a_focused_back_out_closes_the_dialog_once(name):
    open_it, button = BACK_OUT[name]
    app = fuzz_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        open_it(app)
        await wait_for(pilot, lambda: app.screen.query(button) and app.screen.focused,
                       what=name)
        app.screen.set_focus(app.screen.query_one(button))
        burst(app, ["enter", "enter", "enter"])
        await wait_for(pilot, lambda: app.screen is app.default_screen, what="closed")
        await pilot.pause()
        assert app.is_running
        assert len(app.screen_stack) == 1


async def test_a_key_typed_into_a_dialog_never_acts_on_the_screen_under_it():
    """On a loaded machine the last keys of a burst into a dialog are handled only once it has
    closed (Enter twice on Back out, then more); they were typed into the dialog, so one must
    not act on the board underneath (`a` there opens the accept dialog again). A key typed
    after the close goes through."""
    from tclk_tui.tui.accept_screen import AcceptScreen

    app = fuzz_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, AcceptScreen))
        typed = events.Key("a", "a")  # typed while the dialog is open
        app.screen.dismiss(None)
        await wait_for(pilot, lambda: app.screen is app.default_screen, what="closed")
        app.post_message(typed)  # ...and handled only now
        for _ in range(5):
            await pilot.pause()
        assert len(app.screen_stack) == 1, app.screen_stack
        await pilot.press("a")  # typed on the board
        await wait_for(pilot, lambda: isinstance(app.screen, AcceptScreen),
                       what="the highlighted offer's accept dialog")


async def test_a_second_dismiss_never_closes_the_dialog_opened_after_it():
    """The gate answers, its result opens the secret; a late second answer from the gate
    must not close the secret it opened."""
    from tclk_tui.tui.gate_screen import GateScreen
    from tclk_tui.tui.secret_screen import SecretScreen

    app = fuzz_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.action_backup_seed()
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen) and app.screen.focused)
        gate = app.screen
        await pilot.press(*"backup", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SecretScreen), what="the seed")
        gate.dismiss(None)
        gate.action_cancel()
        await pilot.pause()
        assert isinstance(app.screen, SecretScreen)


async def test_an_answer_that_comes_while_the_help_is_on_top_closes_its_own_dialog():
    from tclk_tui.tui.help_screen import HelpScreen
    from tclk_tui.tui.note_screen import ReceiptScreen

    app = fuzz_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        PLACES["receipt"](app)
        await wait_for(pilot, lambda: isinstance(app.screen, ReceiptScreen))
        receipt = app.screen
        app.action_help()
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        receipt.dismiss(None)  # as a worker finishing under the help would
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen), "the help stays until closed"
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.default_screen,
                       what="the receipt dialog closing once it is on top again")
        assert len(app.screen_stack) == 1
