"""What the operating system says, said as a sentence; output that stops early stops quietly;
what needs no venue works without one; a seed never rides on the command line."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import PASS_ENV, PASSPHRASE, run_cli


def _closed_port_url() -> str:
    """A loopback URL where nothing listens: the port was bound, then released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _no_os_jargon(text: str) -> None:
    assert "Errno" not in text and "Traceback" not in text and "(17," not in text, text
    assert "Exception ignored" not in text, text


async def test_identity_answers_with_the_venue_down(home):
    code, out, err = await run_cli(_closed_port_url(), home, "alice", "identity", "--json")
    assert code == 0, err
    assert '"did": "did:key:z6Mk' in out


async def test_a_profile_path_taken_by_a_file_is_one_sentence(home):
    (home / "alice").write_text("not a directory\n")
    code, _out, err = await run_cli(_closed_port_url(), home, "alice", "identity")
    assert code == 1
    _no_os_jargon(err)
    assert len(err.strip().splitlines()) == 1
    assert f"{home / 'alice'} is a file, not a directory" in err


async def test_a_seed_backup_onto_an_existing_file_says_it_never_overwrites(home, tmp_path):
    taken = tmp_path / "taken.txt"
    taken.write_text("keep me\n")
    code, out, err = await run_cli(_closed_port_url(), home, "alice", "vault", "backup",
                                   "--yes", "--out", str(taken))
    assert code == 1 and out == ""
    _no_os_jargon(err)
    assert f"cannot write the seed backup: {taken} already exists" in err
    assert "never overwrites" in err and taken.read_text() == "keep me\n"


async def test_an_audit_of_a_missing_file_names_it_plainly(home, tmp_path):
    missing = tmp_path / "tclk-offers.jsonl"
    code, out, err = await run_cli(_closed_port_url(), home, "alice", "audit", str(missing))
    assert code == 1
    _no_os_jargon(out + err)
    assert f"cannot read the export: {missing} does not exist" in out


async def test_a_full_disk_is_named_as_such(venue, home):
    """Linux's /dev/full answers every write with ENOSPC: a full disk, for real."""
    code, out, err = await run_cli(venue.url, home, "alice", "offer", "--amount", "5",
                                   "--asset", "FLOP", "--rails", "paper", "--json")
    assert code == 0, err
    code, _out, err = await run_cli(venue.url, home, "alice", "evidence",
                                    json.loads(out)["deal"], "--out", "/dev/full")
    assert code != 0
    _no_os_jargon(err)
    assert "cannot write the evidence bundle: the disk holding /dev/full is full" in err


async def _into_a_closed_pipe(home: Path, venue_url: str, *args: str) -> tuple[int, str]:
    """Run the CLI with stdout a pipe whose reader has already gone (what `| head -1` leaves
    once head has read its line): every write fails with EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = dict(os.environ, **{PASS_ENV: PASSPHRASE})
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tclk_tui.cli", "--home", str(home), "--profile", "bob",
            "--venue", venue_url, "--vault", "file", "--passphrase-env", PASS_ENV, *args,
            stdout=write_end, stderr=asyncio.subprocess.PIPE, env=env)
    finally:
        os.close(write_end)
    async with asyncio.timeout(60):
        _out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, err.decode()


@pytest.mark.parametrize("args", [("board", "--all"), ("board", "--all", "--json"),
                                  ("rails",), ("--help",)])
async def test_output_into_a_closed_pipe_ends_quietly(venue, home, args):
    for n in range(3):
        code, _out, err = await run_cli(venue.url, home, "alice", "offer", "--amount",
                                        str(n + 1), "--asset", "FLOP", "--rails", "paper")
        assert code == 0, err
    code, err = await _into_a_closed_pipe(home, venue.url, *args)
    assert err == "", err
    assert code in (0, 141)
    if args[0] != "--help":  # argparse's own printing already swallows the error, exit 0
        assert code == 141


async def test_a_real_head_minus_one_prints_one_line_and_no_error(venue, home):
    for n in range(3):
        code, _out, err = await run_cli(venue.url, home, "alice", "offer", "--amount",
                                        str(n + 1), "--asset", "FLOP", "--rails", "paper")
        assert code == 0, err
    env = dict(os.environ, **{PASS_ENV: PASSPHRASE})
    command = (f"{sys.executable} -m tclk_tui.cli --home {home} --profile bob --venue "
               f"{venue.url} --vault file --passphrase-env {PASS_ENV} board --all | head -1")
    proc = await asyncio.create_subprocess_shell(
        command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode == 0 and len(out.decode().splitlines()) == 1
    assert err.decode() == ""


async def test_vault_restore_refuses_a_seed_given_as_an_argument(home):
    seed_like = "tclk-seed1 qzxv-1 qzxv-2 qzxv-3 qzxv-4"
    code, out, err = await run_cli(_closed_port_url(), home, "alice", "vault", "restore",
                                   *seed_like.split())
    assert code == 2 and out == ""
    assert "shell history" in err and "nothing was restored" in err
    for word in seed_like.split():
        assert word not in err
    code, out, err = await run_cli(_closed_port_url(), home, "alice", "vault", "restore",
                                   "--help")
    assert code == 0 and "stdin" in out and "SEED" not in out and "seed]" not in out
