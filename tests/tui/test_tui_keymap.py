"""The operator's keymap file: every binding has an id, a file moves keys, a bad one is told."""

import sys
from pathlib import Path

import platformdirs
from textual.widgets import Tabs

from tclk_tui.engine.door import LocalDoor
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.deal_room import summary_text
from tclk_tui.tui.deliberate import DeliberateKeys
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.help_screen import HelpScreen
from tclk_tui.tui.key_scopes import DIALOGS, binding_scopes, bindings_of, fixed_ids
from tclk_tui.tui.keymap import binding_keys, load_keymap, resolve_keymap
from tclk_tui.tui.offer_form import OfferFormScreen
from tclk_tui.tui.user_config import config_dir, keymap_file, user_themes_dir
from tests.tui.conftest import screen_text, wait_for
from tests.tui.contract_wallet import ContractWallet, gate_request, make_deal, make_offer


def _own_bindings():
    """Every binding the app's own classes declare (Textual's widgets' are not ours)."""
    scopes = binding_scopes()
    own = [b for bindings in scopes.values() for b in bindings
           if not b.action.startswith(("cursor_", "scroll_", "page_", "select", "first",
                                       "last", "command_palette", "quit", "help_quit"))]
    return own + bindings_of(*DIALOGS)


def _notices(app) -> list[str]:
    return [n.message for n in app._notifications]


def test_every_binding_has_an_id_and_no_two_share_one():
    bindings = _own_bindings()
    assert len(bindings) > 40
    missing = [(b.key, b.action) for b in bindings if not b.id]
    assert missing == []
    ids = [b.id for b in bindings]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_dialogs_keys_are_fixed():
    fixed = fixed_ids()
    for name in ("gate.confirm", "accept.confirm", "receipt.post", "offer_form.post",
                 "gate.cancel", "focus.next"):
        assert name in fixed
    assert "board.accept" not in fixed


def _resolve(entries):
    return resolve_keymap(entries, binding_scopes(), fixed_ids())


def test_a_moved_key_is_kept_and_its_twin_moves_with_it():
    loaded = _resolve({"board.new_offer": "o", "deal.lock": "L,ctrl+l"})
    assert loaded.problems == ()
    assert loaded.keymap["board.new_offer"] == "o"
    assert loaded.keymap["deal.lock"] == "L,ctrl+l"
    assert loaded.keymap["deal.lock.why"] == "L,ctrl+l"


def test_unknown_and_fixed_ids_are_refused_with_a_reason():
    loaded = _resolve({"board.nope": "o", "gate.confirm": "enter", "deal.lock.why": "L"})
    assert loaded.keymap == {}
    text = "\n".join(loaded.problems)
    assert "unknown binding id 'board.nope'" in text
    assert "gate.confirm keeps its key" in text
    assert "unknown binding id 'deal.lock.why'" in text


def test_a_key_given_to_two_ids_is_refused_for_both():
    loaded = _resolve({"board.new_offer": "o", "board.sort": "o", "vault.backup": "B"})
    assert loaded.keymap == {"vault.backup": "B"}
    assert any("o is given to both board.new_offer and board.sort" in p
               for p in loaded.problems)


def test_the_same_key_in_two_panes_is_fine():
    loaded = _resolve({"board.new_offer": "o", "vault.backup": "o"})
    assert loaded.problems == ()


def test_a_key_another_binding_keeps_is_refused():
    # "a" is the board's Accept; "1" is the app's Board key, which answers on every pane.
    loaded = _resolve({"board.new_offer": "a", "vault.backup": "1", "app.help": "ctrl+q"})
    assert loaded.keymap == {}
    text = "\n".join(loaded.problems)
    assert "board.new_offer: a is already board.accept (Accept)" in text
    assert "vault.backup: 1 is already pane.board (Board)" in text
    assert "app.help: ctrl+q is already Quit" in text


def test_a_key_freed_by_a_move_can_be_taken():
    loaded = _resolve({"board.accept": "A", "board.new_offer": "a"})
    assert loaded.problems == ()


def test_two_keys_can_swap():
    loaded = _resolve({"deal.lock": "r", "deal.reveal": "l"})
    assert loaded.problems == ()
    assert loaded.keymap["deal.reveal.why"] == "l"


def test_bad_values_are_refused():
    loaded = _resolve({"board.accept": 3, "board.sort": "", "board.reverse": "ctrl r"})
    assert loaded.keymap == {}
    assert len(loaded.problems) == 3


def test_file_forms_and_a_file_that_is_not_toml(tmp_path: Path):
    path = tmp_path / "keymap.toml"
    path.write_text('"board.new_offer" = "o"\n[deal]\nlock = "L"\n')
    loaded = load_keymap(path, binding_scopes(), fixed_ids())
    assert loaded.keymap == {"board.new_offer": "o", "deal.lock": "L", "deal.lock.why": "L"}
    path.write_text('board.new_offer = "o\n')
    loaded = load_keymap(path, binding_scopes(), fixed_ids())
    assert loaded.keymap == {}
    assert "not valid TOML" in loaded.problems[0] and str(path) in loaded.problems[0]
    assert load_keymap(tmp_path / "absent.toml", binding_scopes()).problems == ()


async def test_a_moved_key_works_shows_in_help_and_on_the_tab(wallet, clock, tmp_path: Path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"board.new_offer" = "o"\n"pane.deals" = "f2"\n')
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, keymap_file=keymap)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "f2 Deals" in screen_text(app)
        await pilot.press("n")  # the old key no longer opens the form
        await pilot.pause()
        assert not isinstance(app.screen, OfferFormScreen)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, OfferFormScreen), what="form")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, OfferFormScreen))
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        lines = app.screen.query_one("#help-text").render().plain.splitlines()
        new_offer = next(line for line in lines if "New offer" in line)
        assert new_offer.split()[0] == "o" and "board.new_offer" in new_offer
        deals = next(line for line in lines if " Deals " in line)
        assert deals.split()[0] == "f2"
        confirm = next(line for line in lines if "Confirm / accept" in line)
        assert "gate.confirm" not in confirm  # fixed: no id offered to a keymap file
        assert str(keymap) in " ".join(lines)  # where to move keys
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.active_pane == "deals", what="deals pane")
        assert app.active_pane == "deals"
        assert not any("keymap" in n for n in _notices(app))


async def test_help_shows_the_keys_bound_by_default(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        lines = app.screen.query_one("#help-text").render().plain.splitlines()

        def key_of(description: str) -> str:
            return next(line for line in lines if f" {description} " in f"{line} ").split()[0]

        assert key_of("Filter") == "/"
        assert key_of("Help") == "?,f1"
        assert key_of("Theme") == "^t"
        assert key_of("Rejected") == "!"
        assert sum(" Lock " in f"{line} " for line in lines) == 1  # the twin is not listed


async def test_a_bad_keymap_is_told_at_start_and_never_fatal(wallet, clock, tmp_path: Path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"board.new_offer" = "o"\n"gate.confirm" = "enter"\n"nope" = "z"\n'
                      '"board.sort" = "a"\n')
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, keymap_file=keymap)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: sum("keymap" in n for n in _notices(app)) == 3,
                       what="three keymap notices")
        notices = "\n".join(_notices(app))
        assert "gate.confirm keeps its key" in notices
        assert "unknown binding id 'nope'" in notices
        assert "board.sort: a is already board.accept" in notices
        await pilot.press("o")  # the good entry still applies
        await wait_for(pilot, lambda: isinstance(app.screen, OfferFormScreen), what="form")
    broken = tmp_path / "broken.toml"
    broken.write_text("[[[")
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, keymap_file=broken)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: any("not valid TOML" in n for n in _notices(app)),
                       what="syntax notice")
        assert app.is_running
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, OfferFormScreen), what="form")


async def test_a_gate_still_confirms_only_on_its_own_key(wallet, clock, tmp_path: Path):
    """A file asking to move the confirm key is refused; the gate keeps y and its guard."""
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"gate.confirm" = "r"\n"deal.reveal" = "R"\n')
    deal_id = "0x" + "d1" * 32
    wallet.views = {deal_id: make_deal(deal_id)}
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, keymap_file=keymap)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None, what="deal")
        wallet.deal(deal_id).next_request = gate_request("reveal", deal_id=deal_id)
        await pilot.press("r")  # the old key of Reveal now does nothing
        await pilot.pause()
        assert not isinstance(app.screen, GateScreen)
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen), what="gate")
        await pilot.press("r", "r")
        await pilot.pause()
        assert isinstance(app.screen, GateScreen)  # "r" never confirms
        assert wallet.deal(deal_id).confirmations == []
        assert any("gate.confirm keeps its key" in n for n in _notices(app))


async def test_tab_strip_focus_and_pane_table_agree(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        for title in ("1 Board", "2 Deals", "3 Vault", "4 Arbiter"):
            assert title in text
        assert "5 Approvals" not in text
        await pilot.press("5")  # no approvals pane without agents: nothing happens
        await pilot.pause()
        assert app.active_pane == "board"
        await pilot.press("4")
        await wait_for(pilot, lambda: isinstance(app.focused, Tabs), what="arbiter tabs")


async def test_hints_on_screen_name_the_moved_keys(clock, tmp_path: Path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('"vault.backup" = "B"\n"board.new_offer" = "o"\n')
    wallet = ContractWallet(rows=[make_offer(1)], deals=[], clock=clock)
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, keymap_file=keymap)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("3")
        await wait_for(pilot, lambda: "B backs up the master seed" in screen_text(app),
                       what="vault hint")
        await pilot.press("2")
        await wait_for(pilot, lambda: "o posts a new one" in screen_text(app),
                       what="no-deals hint")
    view = make_deal(disagreement="the rail says refunded")
    assert "G reconciles" in summary_text(view, "G").plain


async def test_swapped_deal_keys_act_and_explain_on_their_new_keys(wallet, clock, tmp_path: Path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('[deal]\nlock = "r"\nreveal = "l"\n')
    deal_id = "0x" + "d1" * 32
    wallet.views = {deal_id: make_deal(deal_id)}  # reveal valid now, lock not
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, keymap_file=keymap)
    async with app.run_test(size=(80, 24)) as pilot:
        app.action_show_pane("deals")
        await wait_for(pilot, lambda: app.deal_room.view is not None, what="deal")
        await pilot.press("r")  # Lock, not valid now: says why instead of doing nothing
        await wait_for(pilot, lambda: any(n.startswith("Lock is not possible")
                                          for n in _notices(app)), what="lock's reason")
        assert not isinstance(app.screen, GateScreen)
        wallet.deal(deal_id).next_request = gate_request("reveal", deal_id=deal_id)
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen), what="reveal gate")
        assert app.screen.request.action == "reveal"


def test_every_guarded_confirm_key_is_fixed():
    """A dialog that posts guards its confirm keys against typing through; a keymap file may
    never move one off the guard."""
    fixed = fixed_ids()
    guarded = [dialog for dialog in DIALOGS if issubclass(dialog, DeliberateKeys)]
    assert len(guarded) >= 3
    for dialog in guarded:
        for binding in bindings_of(dialog):
            assert binding.id in fixed
            if binding.action not in ("cancel", "close"):
                assert set(binding_keys(binding)) <= dialog.CONFIRM_KEYS, binding


def test_the_keymap_and_user_themes_live_in_the_platform_config_folder(monkeypatch,
                                                                       tmp_path: Path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    base = Path(platformdirs.user_config_dir("tclk-tui", appauthor=False))
    if sys.platform.startswith("linux"):
        assert base == tmp_path / "tclk-tui"
    assert config_dir() == base
    assert keymap_file() == base / "keymap.toml"
    assert user_themes_dir() == base / "themes"
