"""The served console in Debian's chromium, driven by playwright (never `playwright install`:
its download is not needed, the system's chromium is the browser).

The terminal (xterm.js inside textual-serve's script) draws on a canvas, so the text is read
from its buffer: an init script keeps the `Terminal` object the page creates (the first value
any object stores as `.terminal`, the name textual-serve's script stores it under) and the test
asks it for its rows through xterm's public buffer API.
"""

from __future__ import annotations

import os
import re
import shutil
import time

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
            self.page.wait_for_timeout(20)
        raise AssertionError(f"{pattern!r} never showed in the browser; it showed:\n{screen}")

    def wait_for_absent(self, pattern: str, timeout_s: float = STEP_TIMEOUT_S) -> str:
        """Poll the terminal's text until `pattern` is gone (bounded)."""
        deadline = time.monotonic() + timeout_s
        screen = self.screen()
        while re.search(pattern, screen):
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} never went away; the browser showed:\n"
                                     f"{screen}")
            self.page.wait_for_timeout(20)
            screen = self.screen()
        return screen

    def read_for(self, seconds: float, pattern: str) -> None:
        """Go on reading the screen as a person reads a dialog, checking it stays up."""
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            assert re.search(pattern, self.screen()), self.screen()
            self.page.wait_for_timeout(50)

    def confirm(self, key: str, dialog: str, done: str, tries: int = 3) -> str:
        """Press a dialog's confirm key until `done` shows, as a person presses again after the
        bell: on a loaded machine a key can still land inside the dialog's reaction time."""
        for _ in range(tries - 1):
            self.page.keyboard.press(key)
            try:
                return self.wait_for(done, STEP_TIMEOUT_S / 4)
            except AssertionError:
                if not re.search(dialog, self.screen()):
                    raise
        self.page.keyboard.press(key)
        return self.wait_for(done)
