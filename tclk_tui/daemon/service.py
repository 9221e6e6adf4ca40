"""The profile's owner at run time: an open wallet, its control socket, its log.

`serve_wallet` is what both `tclk-tui daemon` (headless) and the app running the engine
in-process use, so every face finds the same socket whoever owns the profile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from tclk_tui import __version__
from tclk_tui.daemon.methods import make_dispatch
from tclk_tui.daemon.paths import socket_path
from tclk_tui.daemon.server import ControlServer
from tclk_tui.engine.events import BoardChanged, DeadlineWarning, DealAdvanced, Notice, VenueStatus
from tclk_tui.engine.wallet import IDENTITY_ENTRY, Wallet

log = logging.getLogger("tclk_tui.daemon")


def held_secrets(wallet: Wallet) -> Iterable[str]:
    """Every secret the profile holds, for the log's redaction filter only."""
    values = wallet.keeper.held_values()
    identity = wallet.vault.backend.get(IDENTITY_ENTRY)
    if identity is not None:
        values.append(bytes(identity).hex())
    return values


@contextlib.asynccontextmanager
async def serve_wallet(wallet: Wallet, profile_dir: Path,
                       stop: asyncio.Event | None = None, *,
                       extra: Mapping[str, Callable[[dict[str, Any]], Awaitable[Any]]]
                       | None = None) -> AsyncIterator[ControlServer]:
    """Serve the wallet's control socket (and log its events) while the block runs."""
    started_ms = int(time.time() * 1000)
    stop = stop or asyncio.Event()

    def status() -> dict[str, Any]:
        return {"pid": os.getpid(), "profile": wallet.profile, "did": wallet.did,
                "venue": wallet.venue_url, "venue_status": wallet.venue_status.state,
                "venue_detail": wallet.venue_status.detail, "started_ms": started_ms,
                "version": __version__, "deals": len(wallet.deals())}

    server = ControlServer(socket_path(profile_dir), make_dispatch(wallet), wallet.events,
                           status=status, on_stop=stop.set, extra=extra)
    await server.start()
    watcher = asyncio.create_task(_log_events(wallet))
    try:
        yield server
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
        await server.close()


async def _log_events(wallet: Wallet) -> None:
    """The log says what happened and why: deal steps, deadline warnings, venue trouble."""
    async for event in wallet.events.stream():
        if isinstance(event, DeadlineWarning):
            log.warning("deadline %s for deal %s: %s, %d s left", event.level, event.deal_id,
                        event.what, event.ms_left // 1000)
        elif isinstance(event, DealAdvanced):
            log.info("deal %s is %s%s", event.deal_id, event.status,
                     f" (refused: {event.reason})" if event.reason else "")
        elif isinstance(event, VenueStatus):
            level = logging.INFO if event.state == "following" else logging.WARNING
            log.log(level, "venue %s%s", event.state, f": {event.detail}" if event.detail else "")
        elif isinstance(event, Notice):
            level = {"info": logging.INFO, "warning": logging.WARNING}.get(event.level,
                                                                            logging.ERROR)
            log.log(level, "%s", event.text)
        elif isinstance(event, BoardChanged) and event.rejected:
            log.info("board: %d lines rejected so far", event.rejected)
