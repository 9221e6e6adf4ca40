"""One helper turns whatever the operating system raised into a sentence naming the path."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tclk_tui.engine.errors import os_error_sentence


def _raised(action) -> OSError:
    with pytest.raises(OSError) as caught:
        action()
    return caught.value


def test_real_failures_read_as_sentences(tmp_path: Path):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    cases = [
        (lambda: (tmp_path / "nope.jsonl").read_text(),
         f"{tmp_path / 'nope.jsonl'} does not exist"),
        (lambda: a_file.mkdir(), f"{a_file} already exists"),
        (lambda: (a_file / "child").write_text("x"), f"a part of {a_file / 'child'} is a file"),
        (lambda: tmp_path.read_text(), f"{tmp_path} is a directory"),
        (lambda: Path("/dev/full").write_text("x" * 10), "the disk holding"),
    ]
    for action, says in cases:
        exc = _raised(action)
        text = os_error_sentence(exc, path=Path("/dev/full"))
        assert says in text and "Errno" not in text and f"[{exc.errno}" not in text, text


def test_permission_denied_and_what_was_being_done():
    exc = PermissionError(errno.EACCES, "Permission denied", "/srv/tclk home/alice")
    assert os_error_sentence(exc, "create the journal") == (
        "cannot create the journal: permission denied on '/srv/tclk home/alice'")


def test_errors_without_a_path_or_errno_still_read_as_words():
    assert os_error_sentence(TimeoutError()) == "the operation timed out"
    assert os_error_sentence(ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
                             ) == "connection refused"
    assert os_error_sentence(OSError(errno.ENOSPC, "No space left on device"),
                             "write the seed backup", path="/backup/seed.txt") == (
        "cannot write the seed backup: the disk holding /backup/seed.txt is full")
