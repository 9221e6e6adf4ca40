"""`vault backup` and `vault restore` are the registry's seed commands behind the engine's
gates: answered by the profile's owner when one runs (the CLI then never opens the vault), and
on the vault alone when none does, where a restore that replaces a seed states what it replaces
and needs --replace."""

from __future__ import annotations

import asyncio
import json
import os
import sys

from tclk_tui.daemon.service import serve_wallet
from tclk_tui.engine.wallet import Wallet
from tests.cli.helpers import PASS_ENV, PASSPHRASE, make_vault, vault_of


async def _cli(home, *args: str, stdin: bytes = b"", passphrase: str = PASSPHRASE,
               venue: str = "http://127.0.0.1:9") -> tuple[int, str, str]:
    env = dict(os.environ, **{PASS_ENV: passphrase})
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tclk_tui.cli", "--home", str(home), "--profile", "alice",
        "--venue", venue, "--vault", "file", "--passphrase-env", PASS_ENV, *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env)
    async with asyncio.timeout(60):
        out, err = await proc.communicate(stdin)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_the_owner_answers_the_seed_commands_and_keeps_a_seed_in_use(venue, home,
                                                                           tmp_path):
    other = tmp_path / "other"
    make_vault(other, "alice")
    backup_of_other = vault_of(other, "alice").export_seed()
    wallet = await Wallet.open("alice", venue_url=venue.url, data_dir=home,
                               vault=vault_of(home, "alice"), follow=False)
    try:
        seed = wallet.vault.export_seed()
        async with serve_wallet(wallet, home / "alice"):
            # A wrong passphrase: the CLI would fail had it opened the vault itself.
            code, out, err = await _cli(home, "vault", "backup", "--yes", "--json",
                                        passphrase="not the passphrase at all")
            assert code == 0, err
            assert json.loads(out) == {"seed": seed}
            code, out, err = await _cli(home, "vault", "backup", passphrase="wrong wrong")
            assert code == 2 and out == "" and "--yes" in err and seed not in err
            code, out, err = await _cli(home, "vault", "restore", "--replace", "--json",
                                        stdin=backup_of_other.encode() + b"\n",
                                        passphrase="wrong wrong")
            assert code == 1, err
            error = json.loads(out)["error"]
            assert error["kind"] == "refused" and "already uses its master seed" in \
                error["message"]
            facts = {f["label"]: f for f in error["gate"]["facts"]}
            assert facts["derived from it"]["ok"] is False
            assert facts["identity"]["detail"] == f"this profile is {wallet.did}"
            assert backup_of_other not in out + err and seed not in out + err
        assert wallet.vault.export_seed() == seed
    finally:
        await wallet.close()


async def test_a_restore_over_another_seed_states_it_and_needs_replace(home, tmp_path):
    fresh = tmp_path / "fresh"
    make_vault(fresh, "alice")  # a seed of its own, nothing derived from it yet
    kept = vault_of(fresh, "alice").export_seed()
    backup = vault_of(home, "alice").export_seed()
    code, out, err = await _cli(fresh, "vault", "restore", stdin=backup.encode() + b"\n")
    assert code == 2 and out == "", err
    assert "vault restore needs --replace" in err and "is replaced" in err
    assert backup not in err and vault_of(fresh, "alice").export_seed() == kept
    code, out, err = await _cli(fresh, "vault", "restore", "--replace", "--json",
                                stdin=backup.encode() + b"\n")
    assert code == 0, err
    assert json.loads(out) == {"fingerprint": vault_of(home, "alice").seed_fingerprint()}
    assert vault_of(fresh, "alice").export_seed() == backup


async def test_a_restore_onto_an_empty_vault_needs_nothing_more(home, tmp_path):
    empty = tmp_path / "empty"
    backup = vault_of(home, "alice").export_seed()
    code, out, err = await _cli(empty, "vault", "restore", stdin=backup.encode() + b"\n")
    assert code == 0, err
    assert out.startswith("master seed restored (fingerprint ") and backup not in out + err
    assert vault_of(empty, "alice").export_seed() == backup
    code, out, err = await _cli(empty, "vault", "restore", "--json",
                                stdin=b"tclk-seed1 not a backup\n")
    assert code == 1 and json.loads(out)["error"]["kind"] == "vault"
