"""A regular (non-editable) install carries what the app reads at run time.

A wheel is built from a copy of the source and installed with `pip install --target`, as a
`--user` or venv install would place it: away from the checkout and from any data-files prefix.
The installed package must then find its bundled themes and its stylesheet by itself.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PROBE = """
import json, tclk_tui
from tclk_tui.tui.themes import bundled_themes_dir, load_themes
loaded = load_themes()
print(json.dumps({"package": tclk_tui.__file__, "themes": str(bundled_themes_dir()),
                  "names": [t.name for t in loaded.themes], "problems": list(loaded.problems)}))
"""


def _pip(*args: str, cwd: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_wheel_installed_elsewhere_loads_its_bundled_themes(tmp_path: Path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "tclk_tui", source / "tclk_tui",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    # No build isolation and no dependencies: the build uses the setuptools already installed
    # and never reaches a package index.
    _pip("wheel", "--quiet", "--no-deps", "--no-build-isolation", "--wheel-dir",
         str(tmp_path / "dist"), ".", cwd=source)
    wheels = list((tmp_path / "dist").glob("*.whl"))
    assert len(wheels) == 1
    site = tmp_path / "site"
    _pip("install", "--quiet", "--no-deps", "--target", str(site), str(wheels[0]),
         cwd=tmp_path)
    assert (site / "tclk_tui" / "tui" / "app.tcss").is_file()
    assert not (site / "share").exists()  # nothing placed under a data-files prefix

    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert Path(found["package"]).is_relative_to(site)  # the installed copy, not the checkout
    assert Path(found["themes"]).is_relative_to(site)
    assert {"tclk-dark", "tclk-light", "tclk-high-contrast"} <= set(found["names"])
    assert found["problems"] == []
