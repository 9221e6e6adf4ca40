"""The served console in a real headless browser: Debian's chromium, driven by playwright,
opens `tclk-tui serve --demo`, waits for the board to paint, and accepts a deal with the keys a
person types, reading the screen the page's terminal shows.

The terminal (xterm.js inside textual-serve's script) draws on a canvas, so the text is read
from its buffer: an init script keeps the `Terminal` object the page creates (the first value
any object stores as `.terminal`, the name textual-serve's script stores it under) and the test
asks it for its rows, through xterm's public buffer API.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tclk_tui.tui.deliberate import DeliberateKeys
from tests.serve.conftest import Served, serving

PAINT_TIMEOUT_S = 120.0
STEP_TIMEOUT_S = 60.0
KEEP_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "terminal",
                          {value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer && !window.__tclkTerminal) window.__tclkTerminal = value;
  },
});
"""
SCREEN = """() => {
  const term = window.__tclkTerminal;
  if (!term) return "";
  const buffer = term.buffer.active, rows = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
}"""


def chromium() -> str:
    path = os.environ.get("TCLK_CHROMIUM") or shutil.which("chromium")
    assert path, ("these tests need Debian's chromium (`apt-get install chromium`, which "
                  ".ci/run does) or TCLK_CHROMIUM naming a Chromium binary")
    return path


class Page:
    def __init__(self, page) -> None:
        self.page = page

    def screen(self) -> str:
        return str(self.page.evaluate(SCREEN))

    def wait_for(self, pattern: str, timeout_s: float = STEP_TIMEOUT_S) -> str:
        """Poll the terminal's text until `pattern` shows (bounded)."""
        deadline = time.monotonic() + timeout_s
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if re.search(pattern, screen):
                return screen
            self.page.wait_for_timeout(50)
        raise AssertionError(f"{pattern!r} never showed in the browser; it showed:\n{screen}")

    def read_for(self, seconds: float, pattern: str) -> None:
        """Go on reading the screen as a person reads a dialog, checking it stays up."""
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            assert re.search(pattern, self.screen()), self.screen()
            self.page.wait_for_timeout(50)


@pytest.fixture
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # Root in a container: chromium's own sandbox needs user namespaces it may not have.
        instance = playwright.chromium.launch(executable_path=chromium(), headless=True,
                                              args=["--no-sandbox"])
        try:
            yield instance
        finally:
            instance.close()


def test_the_board_paints_and_a_deal_is_accepted_in_the_browser(tmp_path: Path,
                                                                demo_tmp: Path, browser):
    requests: list[str] = []
    with serving(tmp_path, "--demo", env={"TMPDIR": str(demo_tmp)}) as served:
        started = time.monotonic()
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        raw = context.new_page()
        raw.on("request", lambda request: requests.append(request.url))
        raw.add_init_script(KEEP_TERMINAL)
        raw.goto(served.url)
        page = Page(raw)
        board = page.wait_for(r"\d+ shown of \d+ offers", PAINT_TIMEOUT_S)
        print(f"board painted in the browser {time.monotonic() - started:.1f} s after the "
              "page was opened")
        assert "tclk demo" in board and re.search(r"\d+ FLOP\s+hash\s+paper\s+payer", board)
        # The page's one served app runs its demo in a throwaway profile under TMPDIR.
        assert [p.name.startswith("tclk-demo-") for p in demo_tmp.iterdir()] == [True]

        raw.focus(".xterm-helper-textarea")
        raw.keyboard.press("a")
        page.wait_for(r"Accept this offer\?")
        # A person reads the dialog before confirming; a `y` sooner is dropped as a stray key.
        page.read_for(DeliberateKeys.REACTION_S, r"Accept this offer\?")
        raw.keyboard.press("y")
        room = page.wait_for(r"accepted \d\d:\d\d me")
        assert re.search(r"ok\s+\d+\s+\S+\s+me\s+accept with statement 0x", room), room
        assert "Accept this offer?" not in room
        # The demo's agent answers the accepted deal by locking on paper.
        page.wait_for(r"locked \d\d:\d\d them")
        context.close()
        _stop_and_check_cleanup(served, demo_tmp)
    outside = [url for url in requests if not url.startswith(served.url)]
    assert outside == [], outside


def _stop_and_check_cleanup(served: Served, demo_tmp: Path) -> None:
    """Stopping the server quits the served app, which deletes its demo profile."""
    assert served.stop() == 0
    assert list(demo_tmp.iterdir()) == []
