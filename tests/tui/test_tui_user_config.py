"""The operator's config folder, as the installed command reads it: the demo runs in tmux with
its own `XDG_CONFIG_HOME`, holding a keymap file and a themes folder with one good and one bad
theme. The moved key works, the bad theme is named with its reason, the good one is offered.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.tui.test_tui_tmux import ROOT, Tmux


def notices(screen: str) -> str:
    """The text of the notices on the right of the screen, their wrapped lines joined."""
    return " ".join(line.rsplit("▌", 1)[1].strip() for line in screen.splitlines()
                    if "▌" in line)


def test_the_demo_reads_the_keymap_and_themes_from_the_config_folder(tmp_path: Path) -> None:
    assert shutil.which("tmux"), "tmux is needed (.ci/run installs it)"
    config = tmp_path / "config" / "tclk-tui"
    (config / "themes").mkdir(parents=True)
    (config / "keymap.toml").write_text('"board.new_offer" = "o"\n')
    (config / "themes" / "mine.toml").write_text('name = "mine"\nprimary = "#5f87af"\n')
    (config / "themes" / "bad.toml").write_text('name = "bad"\nprimary = "plaid"\n')
    socket = f"tclk-test-{uuid.uuid4().hex[:8]}"
    tmux = Tmux(socket, "demo")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "screen", "NO_COLOR": "1",
           "TCLK_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "demo",
                    "-x", "100", "-y", "30", f"{sys.executable} -m tclk_tui.cli demo"],
                   check=True, env=env, timeout=30, cwd=str(ROOT))
    try:
        tmux.wait_for(r"shown of \d+ offers")
        # The refused theme is named with its reason (the notice wraps: read it joined).
        screen = tmux.wait_for(r"bad\.toml")
        assert "not a colour: 'plaid'" in notices(screen), screen
        tmux.keys("o")
        tmux.wait_for(r"New offer \(checked")
        tmux.keys("Escape")
        tmux.wait_for(r"shown of \d+ offers")
        tmux.keys("C-p")
        tmux.literal("Theme: mine")
        tmux.wait_for(r"Theme: mine")
        tmux.keys("Enter")
        deadline = time.monotonic() + 60
        while "Theme: mine" not in notices(tmux.screen()):  # the switch says which is on
            assert time.monotonic() < deadline, tmux.screen()
            time.sleep(0.05)
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], check=False, timeout=30,
                       capture_output=True)
