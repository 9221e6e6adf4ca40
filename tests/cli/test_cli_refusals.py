"""Operator mistakes at the command line: each one clear sentence and a non-zero exit."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import PASS_ENV, PASSPHRASE, make_vault, run_cli


def _run(home_dir: Path, *args: str, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    env = dict(os.environ, **{PASS_ENV: PASSPHRASE})
    return subprocess.run([sys.executable, "-m", "tclk_tui.cli", "--home", str(home_dir),
                           "--vault", "file", "--passphrase-env", PASS_ENV, *args],
                          stdin=stdin, capture_output=True, text=True, timeout=60, env=env,
                          check=False)


def _one_sentence(done: subprocess.CompletedProcess) -> str:
    err = done.stderr.strip()
    assert done.returncode != 0 and "Traceback" not in err and "unexpected" not in err, err
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize(("url", "says"), [
    ("http://127.0.0.1:99999", "port"),
    ("http://127.0.0.1:0", "port 0"),
    ("http://[::1", "not a valid URL"),
    ("ftp://venue.example", "http:// or https://"),
    ("http://", "names no host"),
    ("http://256.256.256.256", "not an IPv4 address"),
    ("http://user:pw@venue.example", "user name or password"),
    ("http://venue .example", "without spaces"),
    ("http://venue.example/\x1b]0;x\x07", "without spaces"),
])
def test_a_bad_venue_url_is_one_sentence(tmp_path, url, says):
    err = _one_sentence(_run(tmp_path, "--venue", url, "identity"))
    assert says in err and "\x1b" not in err


@pytest.mark.parametrize("port", ["99999", "0", "-1", "http"])
def test_venue_with_a_bad_port_is_refused_before_serving(tmp_path, port):
    done = _run(tmp_path, "venue", "--port", port)
    assert done.returncode == 2 and "not a TCP port (1-65535)" in done.stderr
    assert "Started server" not in done.stderr


@pytest.mark.parametrize("args", [(), ("demo",)])
def test_the_app_without_a_terminal_says_so(tmp_path, args):
    err = _one_sentence(_run(tmp_path, *args))
    assert "needs an interactive terminal" in err


def test_passphrase_env_is_honoured_on_a_terminal(tmp_path):
    make_vault(tmp_path, "default")
    main_fd, child_fd = pty.openpty()
    env = dict(os.environ, **{PASS_ENV: PASSPHRASE})
    proc = subprocess.Popen([sys.executable, "-m", "tclk_tui.cli", "--home", str(tmp_path),
                             "--vault", "file", "--passphrase-env", PASS_ENV, "vault",
                             "backup", "--yes"], stdin=child_fd, stdout=child_fd,
                            stderr=child_fd, env=env, close_fds=True)
    os.close(child_fd)
    seen = b""
    try:
        while b"passphrase for" not in seen and proc.poll() is None:
            ready, _, _ = select.select([main_fd], [], [], 30)
            if not ready:
                break
            try:
                seen += os.read(main_fd, 4096)
            except OSError:
                break
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
        os.close(main_fd)
    assert b"passphrase for" not in seen, seen
    assert proc.returncode == 0 and b"tclk-seed1 " in seen, seen


async def test_control_characters_in_job_are_refused(venue, home):
    code, _out, err = await run_cli(venue.url, home, "alice", "offer", "--amount", "1000",
                                 "--asset", "FLOP", "--rails", "paper",
                                 "--job", "a2a:task\x1b]0;renamed\x07")
    assert code == 2 and "job: control or invisible characters are not allowed" in err
    assert "\x1b" not in err and "\\x1b" in err
