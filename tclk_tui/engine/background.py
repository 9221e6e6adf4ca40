"""The wallet's background tasks: room followers, the deadline watch, capability look-ups.

One owner for all of them, so closing the wallet cancels every task and nothing outlives it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any


class Background:
    def __init__(self) -> None:
        self._tasks: list[asyncio.Task[None]] = []
        self.closed = False

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` until it ends or the wallet closes (a closed wallet starts nothing)."""
        if self.closed:
            work.close()
            return
        self._tasks = [t for t in self._tasks if not t.done()]
        self._tasks.append(asyncio.create_task(work))

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
