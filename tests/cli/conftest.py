"""CLI fixtures: a data directory holding the vaults of two profiles, alice and bob."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import make_vault


@pytest.fixture
def home(tmp_path: Path) -> Path:
    for profile in ("alice", "bob"):
        make_vault(tmp_path, profile)
    return tmp_path
