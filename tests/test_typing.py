"""The package type-checks: the ports between engine and faces are proven, not hoped for.

The configuration (pyproject.toml, [tool.mypy]) checks every function body and demands full
annotations in protocol/ and engine/; any error fails this test with mypy's own report.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_error_in_the_package():
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"],
                            cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
