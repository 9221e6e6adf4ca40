"""The referee's console driven as a person does, on real wallets and the rehearsal venue:
the Cases list, a release through its gate, a committee's progress, a vote round."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

from tclk_tui.rails.memory import MemoryRail
from tclk_tui.tui.arb_cases import CasesForm
from tclk_tui.tui.arb_committee import CommitteeForm
from tests.engine.helpers import Clock, Pair, arbitrated_deal, open_wallet
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


async def test_cases_list_and_a_release_through_the_gate(pair: Pair):
    carol = await pair.open("carol")
    offer_id, _, deal_b = await arbitrated_deal(pair, [carol])
    form = CasesForm(carol.referee, id="cases")
    app = Host(form)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#cases-refresh")
        await wait_for_timer(pilot, lambda: form.cases and form.cases[0].lock_verified,
                             what="the case with its lock checked")
        table = app.query_one("#cases-table", DataTable)
        assert table.row_count == 1
        assert "locked" in screen_text(app) and "the secret" in screen_text(app)
        await pilot.click("#cases-release")
        await wait_for(pilot, lambda: app.screen.query("#gate-code"), what="the gate")
        assert "Release to the payee, sealed" in screen_text(app)
        await pilot.press("escape")  # backing out releases nothing
        await wait_for(pilot, lambda: not app.screen.query("#gate-code"), what="dismiss")
        assert form.cases[0].decision == "pending"
        await pilot.click("#cases-release")
        await wait_for(pilot, lambda: app.screen.query("#gate-code"), what="the gate")
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


async def test_withhold_and_a_refusal_shown_in_words(pair: Pair):
    carol = await pair.open("carol")
    await arbitrated_deal(pair, [carol])
    form = CasesForm(carol.referee, id="cases")
    app = Host(form)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#cases-refresh")
        await wait_for_timer(pilot, lambda: form.cases, what="cases")
        await pilot.click("#cases-withhold")
        await wait_for(pilot, lambda: form.cases[0].decision == "withheld")
        await pilot.click("#round-commit")  # no verdict typed
        await wait_for(pilot, lambda: "type a verdict" in text_of(app, "#case-detail"))
        await pilot.press("tab", "tab", "enter", "escape")  # keys with no input focused


async def test_committee_progress_then_the_round_view(pair: Pair):
    jurors = [await pair.open(name) for name in ("j1", "j2", "j3")]
    offer_id, _, deal_b = await arbitrated_deal(pair, jurors, lock="point")
    progress = CommitteeForm(pair.bob, id="committee")
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
    form = CasesForm(jurors[2].referee, id="cases")
    app = Host(form)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#cases-refresh")
        await wait_for_timer(pilot, lambda: form.cases, what="cases")
        assert "committed" in text_of(app, "#round-text")
        assert "commit phase open" in text_of(app, "#round-text")
        await pilot.click("#round-open")
        await wait_for_timer(pilot, lambda: "still open" in text_of(app, "#case-detail"),
                             what="the early-open refusal")
        app.query_one("#round-verdict").value = "refund"
        await pilot.click("#round-commit")
        await wait_for_timer(pilot, lambda: "commit phase closed" in text_of(app, "#round-text"),
                             what="the round closed")
        await pilot.click("#round-open")
        await wait_for_timer(pilot, lambda: "opened: refund" in text_of(app, "#round-text"),
                             what="our opening")
    assert deal_b.state.status == "locked"
