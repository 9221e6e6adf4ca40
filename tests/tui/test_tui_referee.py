"""The referee's console driven as a person does, on real wallets and the rehearsal venue:
the Cases list, a release through its gate, a committee's progress, a vote round."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

from tclk_tui.engine import commands
from tclk_tui.engine.door import LocalDoor
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.tui.arb_cases import CasesForm
from tclk_tui.tui.arb_committee import CommitteeForm
from tclk_tui.tui.gate_screen import GateScreen
from tests.engine.helpers import Clock, Pair, arbitrated_deal, draft, lock_as_payer, open_wallet
from tests.tui.conftest import screen_text, wait_for, wait_for_timer

SIZE = (120, 40)


class Host(App):
    def __init__(self, widget) -> None:
        super().__init__()
        self._widget = widget

    def compose(self) -> ComposeResult:
        yield self._widget


@pytest.fixture
async def pair(venue, tmp_path: Path):
    shared = Clock((int(time.time()) // 1000) * 1_000_000)
    venue.venue.config.clock = shared.seconds
    memory = MemoryRail(clock=shared)
    rails = {"memory": memory}
    alice = await open_wallet(venue.url, tmp_path, "alice", clock=shared, rails=rails)
    bob = await open_wallet(venue.url, tmp_path, "bob", clock=shared, rails=rails)
    duo = Pair(venue=venue, data_dir=tmp_path, clock=shared, memory=memory, alice=alice, bob=bob)
    try:
        yield duo
    finally:
        await duo.close()


def text_of(app: App, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


async def focused_cases(pilot, app: App, form: CasesForm) -> None:
    """The cases listed with their lock checked, and focus on the list, where its keys work."""
    form.query_one("#cases-table", DataTable).focus()
    await pilot.press("g")
    await wait_for_timer(pilot, lambda: form.cases and form.cases[0].lock_verified,
                         what="the case with its lock checked")


async def open_gate(pilot, app: App, key: str):
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, GateScreen) and app.screen.focused,
                   what=f"the gate behind {key}")
    gate = app.screen
    # Focus starts where Enter does nothing that cannot be taken back.
    assert gate.focused.id in ("gate-cancel", "gate-code")
    return gate


async def test_cases_list_and_a_release_through_the_gate(pair: Pair):
    carol = await pair.open("carol")
    offer_id, _, deal_b = await arbitrated_deal(pair, [carol])
    form = CasesForm(LocalDoor(carol), id="cases")
    app = Host(form)
    async with app.run_test(size=SIZE) as pilot:
        await focused_cases(pilot, app, form)
        table = app.query_one("#cases-table", DataTable)
        assert table.row_count == 1
        assert "locked" in screen_text(app) and "the secret" in screen_text(app)
        await open_gate(pilot, app, "r")
        assert "Release to the payee, sealed" in screen_text(app)
        await pilot.press("escape")  # backing out releases nothing
        await wait_for(pilot, lambda: not app.screen.query("#gate-code"), what="dismiss")
        assert form.cases[0].decision == "pending"
        await open_gate(pilot, app, "r")
        await pilot.press(*"zzzz", "enter")  # a wrong code never enables the confirm button
        await pilot.pause()
        assert app.screen.query_one("#gate-confirm").disabled
        assert carol.referee.case(offer_id).decision == "pending"
        code = deal_b.state.contract[2:6]
        app.screen.query_one("#gate-code").value = ""
        await pilot.press(*code, "enter")
        await wait_for_timer(pilot, lambda: form.cases[0].decision == "released",
                             what="released")
        assert "released" in screen_text(app)
    await pair.bob.check_mail()
    assert pair.bob.keeper.deal_secret(offer_id) is not None


async def test_withhold_is_a_gate_with_the_code_and_a_refusal_is_shown_in_words(pair: Pair):
    carol = await pair.open("carol")
    offer_id, _, deal_b = await arbitrated_deal(pair, [carol])
    form = CasesForm(LocalDoor(carol), id="cases")
    app = Host(form)
    async with app.run_test(size=SIZE) as pilot:
        await focused_cases(pilot, app, form)
        await pilot.press("enter", "enter")  # Enter on the list withholds nothing
        gate = await open_gate(pilot, app, "w")
        assert "Withhold, for good" in screen_text(app) and "never claim" in screen_text(app)
        await pilot.press("enter", "enter", "y")  # no code typed: nothing happens
        await pilot.pause()
        assert app.screen is gate and carol.referee.case(offer_id).decision == "pending"
        gate.query_one("#gate-code").value = ""  # the y went into the code field
        await pilot.press(*deal_b.state.contract[2:6], "enter")
        await wait_for_timer(pilot, lambda: form.cases[0].decision == "withheld",
                             what="withheld")
        await pilot.press("c")  # no verdict typed: the field takes focus and says so
        await wait_for(pilot, lambda: "type the verdict" in text_of(app, "#case-detail"))
        assert app.focused.id == "round-verdict"
        await pilot.press("enter")  # still no verdict: nothing opens
        await pilot.pause()
        assert not isinstance(app.screen, GateScreen)
        await pilot.press("tab", "tab", "enter", "escape")  # keys with no input focused


async def test_mint_is_a_gate_and_the_list_follows_the_deal_by_itself(pair: Pair, monkeypatch):
    """The arbiter mints through its gate (a plain yes); then, with no key pressed, the list
    shows the accept and the lock as the venue and the rail report them."""
    monkeypatch.setattr(CasesForm, "REFRESH_S", 0.2)
    carol = await pair.open("carol")
    alice, bob = pair.alice, pair.bob
    offer_id = (await alice.post_offer(draft(rails="memory", panel=carol.did))).deal_id
    await carol.referee.refresh()
    form = CasesForm(LocalDoor(carol), id="cases")
    app = Host(form)
    async with app.run_test(size=SIZE) as pilot:
        form.query_one("#cases-table", DataTable).focus()
        await wait_for_timer(pilot, lambda: form.cases, what="the case")
        assert not form.cases[0].minted
        await open_gate(pilot, app, "m")
        assert "tclk1-statement" in screen_text(app)
        await pilot.press("y")
        await wait_for_timer(pilot, lambda: form.cases[0].minted, what="minted")
        await bob.sync()
        await bob.accept_offer(offer_id)
        await wait_for_timer(pilot, lambda: form.cases[0].status == "accepted",
                             what="the accept, unasked")
        await alice.sync()
        await lock_as_payer(pair, alice.deal(offer_id), "memory")
        await wait_for_timer(pilot, lambda: form.cases[0].lock_verified is True,
                             what="the lock checked on the rail, unasked")
        assert "lock verified" in text_of(app, "#case-detail")


async def test_committee_progress_then_the_round_view(pair: Pair):
    jurors = [await pair.open(name) for name in ("j1", "j2", "j3")]
    offer_id, _, deal_b = await arbitrated_deal(pair, jurors, lock="point")
    progress = CommitteeForm(LocalDoor(pair.bob), id="committee")
    app = Host(progress)
    first = jurors[0].referee
    await first.refresh()
    request = first.request_release(offer_id)
    await first.confirm_release(request, request.confirm_code)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#committee-check")
        await wait_for_timer(pilot, lambda: progress.items and progress.items[0]["have"],
                             what="one share in")
        shown = text_of(app, "#committee-text")
        assert "1 of 3 shares in" in shown and "missing" in shown
        for juror in jurors[1:]:
            await juror.referee.refresh()
            request = juror.referee.request_release(offer_id)
            await juror.referee.confirm_release(request, request.confirm_code)
        await pilot.click("#committee-check")
        await wait_for_timer(pilot, lambda: progress.items[0]["opened"], what="combined")
        assert "combined" in text_of(app, "#committee-text")

    # The round: two jurors commit; the third's console refuses to open early and shows it.
    await jurors[0].referee.commit(offer_id, "release")
    await jurors[1].referee.commit(offer_id, "release")
    form = CasesForm(LocalDoor(jurors[2]), id="cases")
    app = Host(form)
    async with app.run_test(size=SIZE) as pilot:
        form.query_one("#cases-table", DataTable).focus()
        await pilot.press("g")
        await wait_for_timer(pilot, lambda: form.cases, what="cases")
        assert "committed" in text_of(app, "#round-text")
        assert "commit phase open" in text_of(app, "#round-text")
        gate = await open_gate(pilot, app, "o")  # the gate says why it cannot open yet
        assert "still open" in screen_text(app) and gate.query_one("#gate-confirm").disabled
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, GateScreen))
        app.query_one("#round-verdict").focus()
        await pilot.press(*"refund")
        await pilot.press("enter")  # Enter in the verdict field opens the commit gate
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen) and app.screen.focused)
        assert "Commit a vote" in screen_text(app) and "refund" in screen_text(app)
        await pilot.press("y")
        await wait_for_timer(pilot, lambda: "commit phase closed" in text_of(app, "#round-text"),
                             what="the round closed")
        form.query_one("#cases-table", DataTable).focus()
        await open_gate(pilot, app, "o")
        await pilot.press("y")
        await wait_for_timer(pilot, lambda: "opened: refund" in text_of(app, "#round-text"),
                             what="our opening")
    assert deal_b.state.status == "locked"


async def test_the_cases_keys_are_in_the_footer_and_the_help_one_key_away():
    """`4` lands on the cases list: every act is one key away, named in the footer and in
    `?`; each opens its gate, and none acts on its own key."""
    from tclk_tui.tui.app import TclkApp
    from tclk_tui.tui.help_screen import HelpScreen
    from tests.tui.contract_wallet import Clock, ContractWallet

    clock = Clock()
    wallet = ContractWallet(clock=clock, referee=True)
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("4")
        await wait_for(pilot, lambda: app.focused is not None
                       and app.focused.id == "cases-table", what="the cases list focused")
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        for word in ("g Refresh", "m Mint", "r Release", "w Withhold", "c Commit", "o Open"):
            assert word in footer, (word, footer)
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_text = str(app.screen.query_one("#help-text").render())
        assert "Arbiter: cases" in help_text and "cases.withhold" in help_text
        await pilot.press("escape")
        for key, action in (("m", "arbiter-mint"), ("r", "arbiter-release"),
                            ("w", "arbiter-withhold"), ("o", "vote-open")):
            await wait_for(pilot, lambda: app.screen is app.default_screen)
            gate = await open_gate(pilot, app, key)
            assert gate.request.action == action
            await pilot.press("enter")  # on Back out, or in an empty code field
            await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.default_screen)
        assert wallet.referee.done == []


async def test_a_mint_goes_through_the_registry():
    """The mint's gate shows the request the registry states, and confirming it runs the
    registry's `mint` (which states it again and confirms it in the engine)."""
    from tests.tui.contract_wallet import ContractWallet

    wallet = ContractWallet(referee=True)
    offer_id = wallet.referee.cases()[1].offer_id  # the juror's case, not minted yet
    form = CasesForm(LocalDoor(wallet), id="cases")
    app = Host(form)
    async with app.run_test(size=SIZE) as pilot:
        form.query_one("#cases-table", DataTable).focus()
        await wait_for(pilot, lambda: form.cases, what="the cases")
        await pilot.press("down")
        await wait_for(pilot, lambda: form.selected == offer_id, what="the juror's case")
        gate = await open_gate(pilot, app, "m")
        assert gate.request == commands.state(wallet, "mint", {"offer": offer_id})
        assert wallet.referee.done == []
        await pilot.press("y")
        await wait_for(pilot, lambda: not isinstance(app.screen, GateScreen), what="done")
        assert wallet.referee.done == [("arbiter-mint", offer_id)]
        await wait_for(pilot, lambda: form.cases[1].minted, what="the list shows it")

