"""Starting the app: on a real profile, or on the demo's throwaway profile and local venue.

The app and the engine share one asyncio loop (Textual's), so the wallet is opened inside the
app's loop and closed before it ends.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
from collections.abc import Awaitable, Callable
from typing import Any

THEME_SETTING = "theme"


def _theme_memory(wallet: Any) -> tuple[str | None, Callable[[str], None]]:
    journal = wallet.journal
    return journal.get_setting(THEME_SETTING), lambda name: journal.set_setting(
        THEME_SETTING, name)


async def _run_app(wallet: Any, agents: Any = None) -> None:
    from tclk_tui.tui.app import TclkApp

    # The board just loaded (up to a whole ring of offers) and lives as long as the app: keep
    # it out of later full garbage collections, which would otherwise stall a repaint.
    gc.freeze()
    theme, remember = _theme_memory(wallet)
    app = TclkApp(wallet, theme=theme, on_theme_change=remember, agents=agents)
    await app.run_async()


def run_wallet_app(args: argparse.Namespace,
                   open_wallet: Callable[..., Awaitable[Any]]) -> None:
    async def main() -> None:
        from tclk_tui.agents.service import serving_agents

        wallet = await open_wallet(args, follow=True)
        try:
            # The profile's agents: the Approvals pane, the audit trail, the mailbox answered.
            async with serving_agents(wallet) as desk:
                await _run_app(wallet, desk)
        finally:
            await wallet.close()

    asyncio.run(main())


def run_demo_app() -> None:
    from tclk_tui.engine.demo import demo_session

    async def main() -> None:
        async with demo_session() as session:
            await _run_app(session.wallet)

    asyncio.run(main())
