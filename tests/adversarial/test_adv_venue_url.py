"""A venue URL that cannot be one, from the command line or the environment, is refused with
its reason before anything is opened or requested."""

from __future__ import annotations

from pathlib import Path

import pytest

from tclk_tui.cli import main
from tests.cli.helpers import PASS_ENV, PASSPHRASE, make_vault


@pytest.mark.parametrize(("url", "says"), [
    ("http://[::1]a", "after its bracketed address"),
    ("http://[::1]a:80", "after its bracketed address"),
    ("http://127.1", "not an IPv4 address"),
    ("http://0x7f.0.0.1", "not an IPv4 address"),
    ("http://2130706433", "not an IPv4 address"),
    ("http://venue.example:0", "port"),
    ("http://venue.example:٨٠", "plain text"),
    ("http://ven\u0435.example", "plain text"),  # a Cyrillic e
])
def test_a_venue_that_cannot_be_one_is_refused_by_flag_and_by_environment(
        url: str, says: str, tmp_path: Path, capsys, monkeypatch):
    make_vault(tmp_path, "default")
    monkeypatch.setenv(PASS_ENV, PASSPHRASE)
    opts = ["--home", str(tmp_path), "--vault", "file", "--passphrase-env", PASS_ENV]
    assert main([*opts, "--venue", url, "board"]) != 0
    assert says in capsys.readouterr().err
    monkeypatch.setenv("TCLK_VENUE", url)
    assert main([*opts, "board"]) != 0
    assert says in capsys.readouterr().err
