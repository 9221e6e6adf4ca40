"""First run and a venue that does not answer, as the operator sees them in the app: the
board says which venue cannot be reached (not "no offers match"), a new profile says where
its secrets are and asks for a seed backup, the vault header names its backend once, and
"not shown again" is said only of what really is not."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from tclk_tui.engine.door import LocalDoor
from tclk_tui.engine.events import VenueStatus
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.arb_split import SHARES_WARNING
from tclk_tui.tui.arb_vote import SALT_WARNING
from tclk_tui.tui.board_pane import BoardPane
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.secret_screen import SecretScreen
from tclk_tui.tui.vault_pane import VaultPane
from tests.engine.helpers import open_wallet
from tests.tui.conftest import screen_text, wait_for
from tests.tui.test_tui_flows import settle

SIZE = (80, 24)


def _closed_port() -> socket.socket:
    """A loopback port bound but never listening: a connection to it is refused at once.
    The caller keeps the socket open so nobody else takes the port meanwhile."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    return sock


def _notices(app: TclkApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_an_unreachable_venue_is_said_on_the_board_with_its_url(tmp_path: Path):
    now = int(time.time() * 1000)
    with _closed_port() as sock:
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        wallet = await open_wallet(url, tmp_path, "alice", clock=lambda: now, follow=True)
        try:
            assert wallet.venue_status.unreachable  # the engine's word, not the app's guess
            app = TclkApp(LocalDoor(wallet))
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot, lambda: "cannot reach" in screen_text(app), "the board")
                text = screen_text(app)
                assert f"cannot reach the venue at {url}" in text
                assert "no offers match" not in text
                assert f"venue {url} unreachable" in text  # the board's status line
        finally:
            await wallet.close()


async def test_the_board_says_no_offers_match_again_once_the_venue_answers(wallet, clock):
    wallet.venue_status = VenueStatus("offline", "connection refused")
    wallet.board.rows.clear()
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "cannot reach the venue at" in screen_text(app))
        app.events.show_venue_status(VenueStatus("following"))
        await wait_for(pilot, lambda: "no offers match" in screen_text(app))
        assert "cannot reach" not in screen_text(app)
        assert app.query_one(BoardPane).unreachable_url is None


async def test_a_first_run_says_where_the_secrets_are_and_asks_for_a_backup(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock, first_run=True)
    async with app.run_test(size=SIZE) as pilot:
        where = wallet.vault_status().backend
        await wait_for(pilot, lambda: any("New profile" in n for n in _notices(app)))
        notice = next(n for n in _notices(app) if "New profile" in n)
        assert where in notice
        assert "Back up the master seed now: Vault pane (3), then b" in notice
        assert "restores this identity and every live deal" in notice
        # The keys it names do what it says.
        await pilot.press("3", "b")
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen))
        assert app.screen.request.action == "seed-backup"


async def test_a_later_run_says_nothing_of_the_kind(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not any("New profile" in n for n in _notices(app))


async def test_the_vault_header_names_its_backend_once(tmp_path: Path):
    now = int(time.time() * 1000)
    with _closed_port() as sock:
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        wallet = await open_wallet(url, tmp_path, "alice", clock=lambda: now)
        try:
            assert wallet.first_run  # this opening made the seed
            where = wallet.vault.describe()
            app = TclkApp(LocalDoor(wallet))
            async with app.run_test(size=(200, 30)) as pilot:
                await pilot.press("3")
                await wait_for(pilot, lambda: app.query_one(VaultPane).secrets)
                header = str(app.query_one("#vault-status").render())
                assert header.count(where) == 1, header
                assert header.count("vault file") == 1 and "master seed held" in header
        finally:
            await wallet.close()
        again = await open_wallet(url, tmp_path, "alice", clock=lambda: now)
        try:
            assert not again.first_run
        finally:
            await again.close()


async def test_a_seed_backup_does_not_claim_it_cannot_be_shown_again(wallet, clock):
    app = TclkApp(LocalDoor(wallet), clock_ms=clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("3", "b")
        await wait_for(pilot, lambda: isinstance(app.screen, GateScreen))
        await pilot.press(*"backup", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SecretScreen))
        text = " ".join(screen_text(app).split())
        assert "not shown again" not in text
        assert "The Vault pane can show it again" in text


def test_not_shown_again_is_said_only_of_values_nothing_keeps():
    # A vote salt from the console's form and a split's shares are made on the spot and kept
    # nowhere (the engine's commit-vote gate says so of the salt too); the seed and a deal's
    # secret live in the vault and can be shown again.
    assert "not shown again" in SALT_WARNING and "not shown again" in SHARES_WARNING
    root = Path(__file__).resolve().parents[2] / "tclk_tui"
    sayers = sorted(path.name for path in root.rglob("*.py")
                    if "not shown again" in " ".join(path.read_text().split()))
    assert sayers == ["arb_split.py", "arb_vote.py", "share_gates.py"]
