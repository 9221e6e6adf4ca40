"""The served console in a real headless browser: Debian's chromium, driven by playwright,
opens `tclk-tui serve --demo`, waits for the board to paint, and accepts a deal with the keys a
person types, reading the screen the page's terminal shows (tests/serve/browser.py).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from tclk_tui.tui.deliberate import DeliberateKeys
from tests.serve.browser import KEEP_TERMINAL, PAINT_TIMEOUT_S, Page
from tests.serve.conftest import Served, serving
from tests.serve.tunnel import tunnel


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
        board = page.wait_for(r"\d+ shown of \d+ offers?\b", PAINT_TIMEOUT_S)
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
        room = page.confirm("y", r"Accept this offer\?", r"accepted \d\d:\d\d me")
        assert re.search(r"ok\s+\d+\s+\S+\s+tclk-offers\s+me\s+accept with", room), room
        assert "Accept this offer?" not in room
        # The demo's agent answers the accepted deal by locking on paper.
        page.wait_for(r"locked \d\d:\d\d them")
        # Stopped with the page still open, as when the operator's SSH session ends.
        _stop_and_check_cleanup(served, demo_tmp)
        raw.wait_for_selector("body.-closed", timeout=60_000)
        context.close()
    outside = [url for url in requests if not url.startswith(served.url)]
    assert outside == [], outside


def _stop_and_check_cleanup(served: Served, demo_tmp: Path) -> None:
    """Stopping the server quits the served app, which deletes its demo profile."""
    assert served.stop() == 0
    assert list(demo_tmp.iterdir()) == []


def test_ctrl_q_in_the_browser_ends_the_session_and_deletes_the_demo_profile(
        tmp_path: Path, demo_tmp: Path, browser):
    with serving(tmp_path, "--demo", env={"TMPDIR": str(demo_tmp)}) as served:
        context = browser.new_context(viewport={"width": 1000, "height": 700})
        raw = context.new_page()
        raw.add_init_script(KEEP_TERMINAL)
        raw.goto(served.url)
        page = Page(raw)
        page.wait_for(r"\d+ shown of \d+ offers?\b", PAINT_TIMEOUT_S)
        assert len(list(demo_tmp.iterdir())) == 1
        raw.focus(".xterm-helper-textarea")
        raw.keyboard.press("Control+q")
        raw.wait_for_selector("body.-closed", timeout=60_000)
        assert raw.locator(".closed-dialog").inner_text().startswith("Session ended.")
        deadline = time.monotonic() + 60
        while list(demo_tmp.iterdir()) and time.monotonic() < deadline:
            raw.wait_for_timeout(50)
        assert list(demo_tmp.iterdir()) == []
        assert served.process.poll() is None  # the server goes on for the next page
        context.close()


def test_the_page_works_through_a_tunnel_on_another_port(tmp_path: Path, browser):
    """The page names no host or port of its own: through `ssh -L 9000:127.0.0.1:8000` the
    browser sees only the tunnel's port, and the terminal socket follows it."""
    with serving(tmp_path, "--demo") as served, tunnel(served.port) as port:
        assert port != served.port
        context = browser.new_context(viewport={"width": 1000, "height": 700})
        raw = context.new_page()
        sockets: list[str] = []
        raw.on("websocket", lambda socket: sockets.append(socket.url))
        raw.add_init_script(KEEP_TERMINAL)
        raw.goto(f"http://localhost:{port}/")
        Page(raw).wait_for(r"\d+ shown of \d+ offers?\b", PAINT_TIMEOUT_S)
        assert [url.split("?")[0] for url in sockets] == [f"ws://localhost:{port}/ws"]
        context.close()
