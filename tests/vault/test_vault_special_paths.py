"""A vault path that is a FIFO or a device fails at once with a sentence.

Each probe runs in a child process with a memory cap and a time limit, so the old behaviour
(a FIFO blocks the open forever, `/dev/zero` is read until memory runs out) fails the test
instead of taking the machine with it.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import sys
from pathlib import Path
from tclk_tui.vault.errors import VaultError
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
backend = FileVaultBackend(Path(sys.argv[1]), passphrase=lambda: "pw", kdf=KdfParams.minimum())
print(backend.info().problem)
for attempt in (lambda: backend.get("seed"), lambda: backend.put("seed", b"x" * 32)):
    try:
        attempt()
    except VaultError as exc:
        print(type(exc).__name__, exc)
"""


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _probe(path: Path) -> str:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    done = subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True,
                          text=True, timeout=60, env=env, preexec_fn=_cap_memory, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_fifo_or_dev_zero_vault_path_is_refused_at_once(tmp_path, kind):
    path = tmp_path / "default.vault"
    if kind == "fifo":
        os.mkfifo(path, 0o600)
        expected = "is a FIFO, not a regular file"
    else:
        path.symlink_to("/dev/zero")
        expected = "is a device, not a regular file"
    out = _probe(path)
    lines = out.splitlines()
    assert len(lines) == 3 and all(expected in line for line in lines), out
    assert lines[1].startswith("VaultUnavailable") and lines[2].startswith("VaultUnavailable")


def test_a_directory_vault_path_is_refused(tmp_path):
    path = tmp_path / "default.vault"
    path.mkdir()
    assert "is a directory, not a regular file" in _probe(path)
