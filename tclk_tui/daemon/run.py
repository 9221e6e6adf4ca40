"""`tclk-tui daemon`: the engine headless, in the foreground, until stopped.

It follows the board and every live deal room, runs the deadline watch, journals and posts, and
serves the control socket. SIGTERM, SIGINT or `tclk-tui daemon stop` end it cleanly; SIGHUP
(a closed terminal) does not, so a dropped SSH session keeps the deadline watch running.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tclk_tui.daemon.logs import remove_logging, setup_logging

log = logging.getLogger("tclk_tui.daemon")


async def run_daemon(open_wallet: Callable[..., Awaitable[Any]], args: Any,
                     profile_dir: Path, log_level: str,
                     beside: Callable[[Any], contextlib.AbstractAsyncContextManager[Any]]
                     | None = None) -> int:
    """`beside(wallet)`, when given, is entered around serving: what it yields is a mapping of
    extra socket methods (the agents' desk, wired in by the CLI, which may import it)."""
    from tclk_tui.daemon.service import held_secrets, serve_wallet

    holder: list[Any] = []
    handler = setup_logging(profile_dir, log_level,
                            lambda: held_secrets(holder[0]) if holder else ())
    try:
        wallet = await open_wallet(args, follow=True)
        holder.append(wallet)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        try:
            async with contextlib.AsyncExitStack() as stack:
                extra = await stack.enter_async_context(beside(wallet)) if beside else None
                server = await stack.enter_async_context(
                    serve_wallet(wallet, profile_dir, stop, extra=extra))
                log.info("daemon serving profile %s (%s) on %s", wallet.profile, wallet.did,
                         server.path)
                print(f"tclk-tui daemon: profile {wallet.profile} served on {server.path}",
                      file=sys.stderr, flush=True)
                await stop.wait()
                log.info("daemon stopping")
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(sig)
            await wallet.close()
        return 0
    finally:
        remove_logging(handler)
