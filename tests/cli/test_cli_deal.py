"""Two wallets in separate processes complete a deal through the headless CLI."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import httpx

from tests.cli.helpers import PASS_ENV, PASSPHRASE, make_vault, run_cli


async def test_cli_hash_lock_deal_on_paper_ends_claimed_and_audits(venue, home, tmp_path):
    async def run(profile, *args):
        return await run_cli(venue.url, home, profile, *args)

    code, out, err = await run("alice", "offer", "--amount", "1000", "--asset", "FLOP",
                               "--rails", "paper", "--json")
    assert code == 0, err
    offer = json.loads(out)["deal"]

    code, out, err = await run("bob", "board", "--json")
    assert code == 0, err
    assert [o["offer"] for o in json.loads(out)["offers"]] == [offer]

    code, out, err = await run("bob", "accept", offer[:12], "--json")
    assert code == 0, err
    contract = json.loads(out)["contract"]

    code, out, err = await run("alice", "lock", offer[:12])
    assert code == 2 and "--yes" in err and "Traceback" not in err
    code, out, err = await run("alice", "lock", offer[:12], "--yes", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "locked"

    code, out, err = await run("bob", "reveal", offer[:12])
    assert code == 2 and "--confirm" in err and "Traceback" not in err
    code, out, err = await run("bob", "reveal", offer[:12], "--confirm", "zzzz")
    assert code == 2
    code, out, err = await run("bob", "reveal", offer[:12], "--confirm", contract[2:6],
                               "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "claimed"

    for profile in ("alice", "bob"):
        code, out, err = await run(profile, "status", offer[:12], "--json")
        assert code == 0, err
        assert json.loads(out)["status"] == "claimed"

    exports = []
    async with httpx.AsyncClient() as http:
        for room in ("tclk-offers", "mb-p-tclk-" + contract[2:18]):
            body = (await http.get(f"{venue.url}/r/{room}/export")).content
            path = tmp_path / f"{room}.jsonl"
            path.write_bytes(body)
            exports.append(str(path))
    code, out, err = await run("alice", "audit", *exports, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert [c["status"] for c in report["contracts"]] == ["claimed"]


async def test_cli_bad_input_is_one_line_never_a_traceback(venue, home):
    code, _out, err = await run_cli(venue.url, home, "alice", "offer", "--amount", "01",
                                "--asset", "FLOP", "--rails", "paperr")
    assert code == 2
    assert "amount" in err and "rails" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    code, _out, err = await run_cli(venue.url, home, "alice", "status", "0xdeadbeef")
    assert code == 1 and "no deal" in err and "Traceback" not in err
    code, _out, err = await run_cli("http://127.0.0.1:9", home, "alice", "board")
    assert code == 1 and "cannot reach the venue" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


async def test_vault_backup_then_restore_from_stdin_into_a_new_home(venue, home, tmp_path):
    code, out, err = await run_cli(venue.url, home, "alice", "vault", "backup")
    assert code == 2 and "--yes" in err and out == ""
    code, out, err = await run_cli(venue.url, home, "alice", "vault", "backup", "--yes")
    assert code == 0, err
    seed = out.strip()
    new_home = tmp_path / "new-home"
    make_vault(new_home, "alice")  # an existing vault with another seed: needs --replace
    env = dict(os.environ, **{PASS_ENV: PASSPHRASE})
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tclk_tui.cli", "--home", str(new_home), "--profile", "alice",
        "--vault", "file", "--passphrase-env", PASS_ENV, "vault", "restore", "--replace",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env)
    async with asyncio.timeout(60):
        out, err = await proc.communicate(seed.encode() + b"\n")
    assert proc.returncode == 0, err.decode()
    assert "restored" in out.decode() and seed not in out.decode() + err.decode()
