from textual.widgets import Button, DataTable

from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.views import VaultStatus
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.restore_screen import RestoreScreen
from tclk_tui.tui.secret_screen import SecretScreen
from tclk_tui.tui.vault_pane import VaultPane
from tclk_tui.vault.backup import parse_backup
from tests.tui.conftest import gate_open, screen_text, wait_for
from tests.tui.contract_wallet import SECRET_VALUE, SEED_TEXT

PREFIX, _, BODY = SEED_TEXT.partition(" ")
GROUPS = BODY.split("-")


async def open_vault(app, pilot):
    await pilot.press("3")
    await wait_for(pilot, lambda: app.active_pane == "vault")
    await wait_for(pilot, lambda: app.query_one(VaultPane).secrets)


async def test_vault_pane_shows_backend_health_and_names_only(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_vault(app, pilot)
        text = screen_text(app)
        assert "vault backend file" in text and "healthy" in text
        assert "deal/0xd1d1/preimage" in text and "master" in text
        assert SECRET_VALUE not in text and SEED_TEXT not in text


async def test_unhealthy_vault_is_loud(wallet, clock):
    wallet.vault_status = lambda: VaultStatus("keyring", False, "collection is locked")
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_vault(app, pilot)
        assert app.query_one(VaultPane).has_class("-unhealthy")
        assert "NOT HEALTHY" in screen_text(app)
        assert "collection is locked" in screen_text(app)


async def test_seed_backup_is_shown_once_behind_a_confirm(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_vault(app, pilot)
        await pilot.press("b")
        # A pushed screen is app.screen before it has drawn: wait for its text and focus.
        await wait_for(pilot, lambda: gate_open(app)
                       and "Type backup to confirm" in screen_text(app), what="the gate")
        assert SEED_TEXT not in screen_text(app)
        assert wallet.calls == []
        await pilot.press(*"backup")
        # Confirm lights up once the typed word has reached the gate; a person clicks then.
        await wait_for(pilot, lambda: not app.screen.query_one("#gate-confirm", Button).disabled,
                       what="Confirm to enable")
        await pilot.click("#gate-confirm")
        await wait_for(pilot, lambda: isinstance(app.screen, SecretScreen)
                       and all(group in screen_text(app) for group in GROUPS),
                       what="the seed words")
        assert ("confirm_seed_backup", "seed-backup") in wallet.calls
        assert "<redacted>" in repr(app.screen) and SEED_TEXT not in repr(app.screen)
        app.copy_to_clipboard(SEED_TEXT)
        await pilot.press("ctrl+c")
        assert app.clipboard == ""
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SecretScreen))
        assert not any(group in screen_text(app) for group in GROUPS)


async def test_secret_reveal_needs_the_typed_code(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_vault(app, pilot)
        app.query_one("#vault-secrets", DataTable).focus()
        await pilot.press("v")
        await wait_for(pilot, lambda: gate_open(app), what="the gate")
        assert app.screen.request.action == "secret-reveal"
        await pilot.press(*"abcd", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SecretScreen))
        assert SECRET_VALUE in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, SecretScreen))


async def test_revealing_the_master_entry_goes_through_the_seed_backup(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_vault(app, pilot)
        table = app.query_one("#vault-secrets", DataTable)
        table.focus()
        await pilot.press("down", "v")
        await wait_for(pilot, lambda: gate_open(app), what="the gate")
        assert app.screen.request.action == "seed-backup"


async def test_restore_flow_refreshes_the_vault(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_vault(app, pilot)
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, RestoreScreen))
        await pilot.press(*"my words")
        app.screen.query_one("#restore-ack").value = True
        await pilot.pause()
        await pilot.click("#restore-ok")
        await wait_for(pilot, lambda: gate_open(app), what="the restore's gate")
        assert app.screen.request.action == "seed-restore" and wallet.restored == []
        await pilot.press(*"replace", "enter")
        await wait_for(pilot, lambda: wallet.restored == [8])
        await wait_for(pilot, lambda: any("restored" in n.message for n in app._notifications))


async def test_clipboard_still_works_for_ordinary_text(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)):
        app.copy_to_clipboard("0xoffer-id")
        assert app.clipboard == "0xoffer-id"


async def test_seed_backup_wraps_between_groups_at_80x24(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_vault(app, pilot)
        await pilot.press("b")
        await wait_for(pilot, lambda: gate_open(app), what="the gate")
        await pilot.press(*"backup", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SecretScreen))
        await pilot.pause()
        box = app.screen.query_one("#secret-value").content_region
        lines = screen_text(app).splitlines()[box.y:box.bottom]
        rows = [line[box.x:box.right].strip() for line in lines]
        assert len(rows) > 1  # it does wrap at this width...
        tokens = [token for row in rows for token in row.split()]
        assert tokens == [PREFIX, *GROUPS]  # ...but only between whole groups
        # What the operator copies down by hand (spaces, line breaks) restores the same seed.
        seed, problem = parse_backup("\n".join(rows))
        expected, _ = parse_backup(SEED_TEXT)
        assert problem is None and seed is not None and expected is not None
        assert seed.reveal() == expected.reveal()
