"""A new encrypted vault asks for its passphrase twice on a terminal, holds it to the strength
rule, says where the vault is and asks for a seed backup; without a terminal the passphrase
comes from TCLK_PASSPHRASE or a variable named with --passphrase-env, and an error about a
missing one names exactly those."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from tclk_tui.vault.strength import RULE

STRONG = "correct horse battery staple"
UNREACHABLE = "http://127.0.0.1:9"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, TCLK_HOME=str(home), **extra)
    if "TCLK_PASSPHRASE" not in extra:
        env.pop("TCLK_PASSPHRASE", None)
    return env


def _run_on_a_terminal(home: Path, answers: list[str], *args: str) -> tuple[int, str]:
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tclk_tui.cli", "--vault", "file", "--venue", UNREACHABLE,
         *(args or ("identity",))],
        stdin=follower, stdout=follower, stderr=follower, env=_env(home),
        start_new_session=True)
    os.close(follower)
    output = b""
    pending = list(answers)
    deadline = time.monotonic() + 60  # a prompt nobody answers ends the run, not the suite
    while True:
        ready, _, _ = select.select([leader], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        # Answer only a prompt that is waiting: getpass flushes input typed before it asks.
        if pending and output.endswith(b": "):
            os.write(leader, pending.pop(0).encode() + b"\n")
    os.close(leader)
    return proc.wait(timeout=60), output.decode(errors="replace").replace("\r\n", "\n")


def _run_headless(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tclk_tui.cli", "--venue", UNREACHABLE, *args],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          env=_env(home, **env), timeout=60, check=False)


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_mismatched_new_passphrases_create_nothing(tmp_path):
    code, text = _run_on_a_terminal(tmp_path, [STRONG, STRONG + "!"])
    assert code == 1
    assert "new passphrase" in text and "the same passphrase again" in text
    assert "differ" in text and "Traceback" not in text
    assert not (tmp_path / "default.vault").exists()


def test_matching_new_passphrases_create_the_vault(tmp_path):
    code, text = _run_on_a_terminal(tmp_path, [STRONG, STRONG])
    # The venue is unreachable, and identity needs none: the new vault answers the DID.
    assert (tmp_path / "default.vault").exists()
    assert "did:key:z6Mk" in text and code == 0
    assert STRONG not in text  # getpass never echoes


def test_a_weak_new_passphrase_is_refused_with_the_rule_and_asked_again(tmp_path):
    code, text = _run_on_a_terminal(tmp_path, ["pw", STRONG, STRONG])
    assert _flat(RULE) in _flat(text)
    assert text.count("new passphrase for the default vault") == 2
    assert (tmp_path / "default.vault").exists() and code == 0  # identity needs no venue
    assert "Traceback" not in text


def test_weak_passphrases_every_time_create_nothing(tmp_path):
    code, text = _run_on_a_terminal(tmp_path, ["pw", "password", "aaaaaaaaaaaaaaaa"])
    assert code == 1 and "no vault was created" in text and _flat(RULE) in _flat(text)
    assert not (tmp_path / "default.vault").exists()
    assert "Traceback" not in text


def test_the_first_run_says_where_the_vault_is_and_asks_for_a_seed_backup(tmp_path):
    _code, text = _run_on_a_terminal(tmp_path, [STRONG, STRONG])
    flat = _flat(text)
    assert str(tmp_path / "default.vault") in flat  # before the prompt, and after
    assert "tclk-tui vault backup --yes --out FILE" in flat
    assert "restores this identity and the secrets of every live deal" in flat
    # Only the run that made the seed says so.
    _code, again = _run_on_a_terminal(tmp_path, [STRONG])
    assert "vault backup" not in again and "passphrase for the default vault" in again


def test_headless_a_weak_new_passphrase_from_a_variable_is_refused(tmp_path):
    result = _run_headless(tmp_path, "--vault", "file", "--passphrase-env", "MY_PASS",
                           "identity", MY_PASS="short")
    assert result.returncode == 1
    assert "the passphrase in MY_PASS is too weak; no vault was created" in result.stderr
    assert _flat(RULE) in _flat(result.stderr) and "short" not in result.stderr.split(":")[1]
    assert not (tmp_path / "default.vault").exists()
    ok = _run_headless(tmp_path, "--vault", "file", "--passphrase-env", "MY_PASS", "identity",
                       MY_PASS=STRONG)
    assert (tmp_path / "default.vault").exists(), ok.stderr
    assert ok.returncode == 0 and "did:key:z6Mk" in ok.stdout, ok.stderr
    assert "new passphrase" not in ok.stderr


def test_tclk_passphrase_is_read_when_set(tmp_path):
    made = _run_headless(tmp_path, "--vault", "file", "identity", TCLK_PASSPHRASE=STRONG)
    assert (tmp_path / "default.vault").exists(), made.stderr
    wrong = _run_headless(tmp_path, "identity", TCLK_PASSPHRASE=STRONG + "?")
    assert wrong.returncode == 1 and "passphrase" in wrong.stderr
    assert "Traceback" not in wrong.stderr


def test_a_missing_passphrase_names_the_options_that_exist(tmp_path):
    # (--vault file: under CI's Secret Service, auto would pick the keyring and ask nothing.)
    result = _run_headless(tmp_path, "--vault", "file", "identity")
    assert result.returncode == 1, result.stderr
    assert "TCLK_PASSPHRASE" in result.stderr and "--passphrase-env VAR" in result.stderr
    assert "on a terminal" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    # The flags it names are real: --help lists them.
    help_text = _run_headless(tmp_path, "--help").stdout
    assert "--passphrase-env VAR" in help_text and "TCLK_PASSPHRASE" in help_text
