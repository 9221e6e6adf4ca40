"""The command palette: typing a command's exact name puts that command on top."""

from textual.command import CommandList, CommandPalette
from textual.fuzzy import Matcher

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.commands import PaletteCommand, rank
from tclk_tui.tui.gate_screen import GateScreen
from tests.tui.conftest import wait_for, wait_for_timer
from tests.tui.contract_wallet import make_deal


def _no_op() -> None:
    return None


def _order(query: str, commands: list[PaletteCommand]) -> list[str]:
    matcher = Matcher(query)
    scored = []
    for command in commands:
        fuzzy = max(matcher.match(command.title),
                    matcher.match(command.name) if command.name else 0.0)
        if fuzzy > 0:
            scored.append((rank(query, command, fuzzy), command.title))
    return [title for _, title in sorted(scored, reverse=True)]


def test_an_exact_name_or_title_ranks_first():
    commands = [PaletteCommand("Sort offers by lock", "", _no_op),
                PaletteCommand("Show rejected board lines", "", _no_op),
                PaletteCommand("Deal: lock", "", _no_op, name="lock"),
                PaletteCommand("Show board", "", _no_op, name="Board")]
    assert _order("lock", commands)[0] == "Deal: lock"
    assert _order("LOCK", commands)[0] == "Deal: lock"
    assert _order("board", commands)[0] == "Show board"
    assert _order("show board", commands)[0] == "Show board"
    assert _order("sort offers by lock", commands)[0] == "Sort offers by lock"


def test_ranks_stay_between_zero_and_one_and_a_prefix_beats_a_fuzzy_hit():
    exact = rank("quit", PaletteCommand("Quit", "", _no_op), 20.0)
    prefix = rank("qu", PaletteCommand("Quit", "", _no_op), 9.0)
    fuzzy = rank("qt", PaletteCommand("Quit", "", _no_op), 1000.0)
    assert 0 < fuzzy < prefix < exact <= 1


async def test_typing_lock_in_the_palette_runs_the_deals_lock(wallet, clock):
    deal_id = "0x" + "d1" * 32
    wallet.views = {deal_id: make_deal(deal_id, status="accepted",
                                       actions=frozenset({"lock", "cancel"}))}
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None, what="deal")
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
        await pilot.press(*"lock")
        hits = app.screen.query_one(CommandList)

        def top() -> str:
            if hits.option_count < 2 or hits.highlighted is None:
                return ""
            return str(hits.get_option_at_index(hits.highlighted).prompt).split("\n")[0]

        await wait_for_timer(pilot, lambda: top() == "Deal: lock", what="Deal: lock on top")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen), what="lock gate")
        assert app.screen.request.action == "lock"
        assert not any(query.sort == "lock" for query in wallet.board.queries)
