"""Shared helpers for the app tests: a pinned clock, a contract wallet, screen text."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from textual.app import App
from textual.pilot import Pilot

from tests.tui.contract_wallet import Clock, ContractWallet, make_deal, make_offer

# Every trick we know: markup with an action, markup styling, CSI colour, OSC title with BEL,
# C1 CSI, DEL, bidi override and isolate, zero-width space and joiner, BOM, line separator,
# a tag character, private use, and a blank-looking Hangul filler.
HOSTILE = ("[@click=app.quit]x[/] [b]bold[/b] \x1b[31mred\x1b]0;title\x07 \x9b2J \x7f "
           "\u202eevil\u202c \u2066iso\u2069 zw\u200bj\u200d \ufeff \u2028 \U000e0041 "
           "\ue000 \u3164 end")
FORBIDDEN_CHARS = ("\x1b", "\x07", "\x9b", "\x7f", "\u202e", "\u202c", "\u2066", "\u2069",
                   "\u200b", "\u200d", "\ufeff", "\u2028", "\U000e0041", "\ue000", "\u3164")


def screen_text(app: App) -> str:
    """The text of every cell the active screen draws, line by line."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def wait_for(pilot: Pilot, predicate: Callable[[], object], *, attempts: int = 200,
                   what: str = "condition") -> None:
    """Let the app process messages until `predicate()` holds (bounded; no timed sleeps)."""
    for _ in range(attempts):
        if predicate():
            return
        await pilot.pause()
    raise AssertionError(f"timed out waiting for {what}")


def dialog_open(app: App, kind: type) -> bool:
    """A dialog as a person meets it: the active screen, mounted, the focus inside it. A pushed
    screen is `app.screen` before its fields exist; keys or queries sent then find none."""
    return isinstance(app.screen, kind) and app.screen.focused is not None


def gate_open(app: App) -> bool:
    """The gate open with the focus where typing goes: the code field when it asks for one,
    else Back out."""
    from tclk_tui.tui.gate_screen import GateScreen

    screen = app.screen
    if not dialog_open(app, GateScreen):
        return False
    wanted = "gate-cancel" if screen.request.confirm_code is None else "gate-code"
    return screen.focused.id == wanted


async def wait_for_timer(pilot: Pilot, predicate: Callable[[], object], *,
                         timeout_s: float = 5.0, what: str = "condition") -> None:
    """Like `wait_for`, for conditions a timer brings about: the app's clock has to move, so
    poll with short pauses, bounded by a deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.01)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def wallet(clock: Clock) -> ContractWallet:
    rows = [make_offer(index) for index in range(40)]
    rows.append(make_offer(99, mine=True, asset="FLOP"))
    return ContractWallet(rows=rows, deals=[make_deal()], clock=clock,
                          rejected={"bad signature": 3, "frame sender is not the signer": 1})


@pytest.fixture
async def demo():
    """The demo session (rehearsal venue, scripted agent, throwaway profile), for flows on the
    real engine; imported here so collecting the suite never needs it."""
    from tclk_tui.demo.session import demo_session

    async with demo_session() as session:
        yield session
