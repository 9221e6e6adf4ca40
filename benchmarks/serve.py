"""The served console's figures, in Debian's chromium through playwright.

Prints: `tclk-tui serve --demo` from start to listening; from opening the page to the board
painted in the browser (a fresh demo per page: its venue, agent and profile start then); and a
keystroke's round trip (a key typed in the page until the screen it opens is painted: `?` opens
the help, Esc closes it), and a letter's echo in the board filter, median and p95.

Run from the repository root: `python3 benchmarks/serve.py [--pages N] [--keys N]`
(TCLK_CHROMIUM names another Chromium binary).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright

from tests.serve.browser import KEEP_TERMINAL, PAINT_TIMEOUT_S, Page, chromium
from tests.serve.conftest import serving

BOARD = r"\d+ shown of \d+ offers?\b"


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(int(len(ordered) * 0.95) - 1, 0)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=3)
    parser.add_argument("--keys", type=int, default=20)
    opts = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tclk-bench-serve-"))
    started = time.perf_counter()
    with serving(tmp, "--demo") as served, sync_playwright() as playwright:
        listening_s = time.perf_counter() - started
        browser = playwright.chromium.launch(executable_path=chromium(), headless=True,
                                             args=["--no-sandbox", "--password-store=basic"])
        paints: list[float] = []
        keys: list[float] = []
        echoes: list[float] = []
        for number in range(opts.pages):
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            raw = context.new_page()
            raw.add_init_script(KEEP_TERMINAL)
            start = time.perf_counter()
            raw.goto(served.url)
            page = Page(raw)
            page.wait_for(BOARD, PAINT_TIMEOUT_S)
            paints.append(time.perf_counter() - start)
            if number == 0:
                raw.focus(".xterm-helper-textarea")
                for _ in range(opts.keys):
                    start = time.perf_counter()
                    raw.keyboard.press("?")
                    page.wait_for(r"Keys \(Esc closes")
                    keys.append((time.perf_counter() - start) * 1000)
                    raw.keyboard.press("Escape")
                    page.wait_for_absent(r"Keys \(Esc closes")
                raw.keyboard.press("/")
                page.wait_for(r"f1 Help")  # the filter has focus: its footer shows
                for count in range(1, opts.keys + 1):
                    start = time.perf_counter()
                    raw.keyboard.press("q")
                    page.wait_for(rf"(?m)^q{{{count}}}\s*$")
                    echoes.append((time.perf_counter() - start) * 1000)
            context.close()
        browser.close()
    print(f"serve --demo listening after {listening_s:5.2f} s")
    print(f"page opened to board painted: median {statistics.median(paints):5.2f} s  "
          f"max {max(paints):5.2f} s  ({opts.pages} pages, a fresh demo each)")
    print(f"key to its screen painted (? opens help): median "
          f"{statistics.median(keys):6.1f} ms  p95 {_p95(keys):6.1f} ms  ({opts.keys} keys)")
    print(f"a letter typed in the board filter until it shows: median "
          f"{statistics.median(echoes):6.1f} ms  p95 {_p95(echoes):6.1f} ms  ({opts.keys} keys)")


if __name__ == "__main__":
    main()
