"""The rail's operations in flight: one task per (action, lock), answered early on a fee wait.

Each lock, claim and refund runs in a task of its own: when its transaction has to wait for
the fee (see `feewait`), the caller is answered at once with `FeeWaiting` (why, and how long
it can wait) while the operation waits in the account's queue and finishes when the fee fits;
calling the same operation again joins it instead of starting a second one.

This is its own object because it knows nothing of the chain, the escrow or the account: it
only runs coroutines and remembers which are running, so the rail's chain logic stays free of
task bookkeeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable, Coroutine, Generator
from dataclasses import dataclass
from typing import Any

from tclk_tui.rails.base import FeeWaiting

from .feewait import CURRENT_OP, FeeQueue, OpSignal

__all__ = ["Operations"]
log = logging.getLogger("tclk_tui.rails.evm.rail")  # the rail's story, under its one name

_TRANSPORT = ("node-unreachable", "node-stalled", "bad-node")  # the node, not the operation


class _Done:
    """An operation's completion, for whoever awaits it: each await is shielded, so a caller
    that gives up (a face closing) never cancels the operation under the others."""

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self._task = task

    def __await__(self) -> Generator[Any, None, Any]:
        return asyncio.shield(self._task).__await__()


@dataclass(eq=False)
class _Operation:
    signal: OpSignal
    task: asyncio.Task[Any]


class Operations:
    """The running operations of one account, keyed by (action, lock id)."""

    def __init__(self, queue: FeeQueue) -> None:
        self._queue = queue
        self._ops: dict[tuple[str, str], _Operation] = {}

    async def run(self, action: str, lock_hex: str,
                  work: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
        """Run `work` in a task of its own; its answer, or `FeeWaiting` as soon as its
        transaction waits for the fee. The same action on the same lock, asked again while it
        runs, joins it: one operation, one transaction."""
        key = (action, lock_hex)
        op = self._ops.get(key)
        started = op is None
        if op is None:
            signal = OpSignal()
            token = CURRENT_OP.set(signal)
            try:
                task = asyncio.create_task(work())
            finally:
                CURRENT_OP.reset(token)
            op = self._ops[key] = _Operation(signal=signal, task=task)
            task.add_done_callback(functools.partial(self._finished, key, op))
        told = asyncio.ensure_future(op.signal.event.wait())
        try:
            await asyncio.wait({op.task, told}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            if started and not op.signal.event.is_set():
                op.task.cancel()  # nothing waits yet: the caller's cancel is the operation's
            raise
        finally:
            told.cancel()
        if op.task.done():
            return op.task.result()
        assert op.signal.wait is not None
        raise FeeWaiting(op.signal.wait, _Done(op.task))

    def _finished(self, key: tuple[str, str], op: _Operation, _task: object) -> None:
        """An operation ended. One that failed for a reason of its own (not the node's
        silence) leaves no wait behind: a wait journaled for it is over, never resumed."""
        if self._ops.get(key) is op:
            del self._ops[key]
        if op.task.cancelled():
            return  # a close, like a crash: its wait stays journaled
        error = op.task.exception()
        if error is None:
            return
        code = getattr(error, "code", type(error).__name__)
        if code not in _TRANSPORT:
            self._queue.abandon(key[0], key[1], str(error).removeprefix("tclk: "))
        if op.signal.wait is not None:
            log.warning("evm %s for lock %s ended after waiting for the fee: %s", key[0],
                        key[1], code)

    async def close(self) -> None:
        """Stop what runs: an operation waiting for the fee stays journaled, resumed when its
        deal next acts, as after a crash."""
        ops, self._ops = list(self._ops.values()), {}
        for op in ops:
            op.task.cancel()
        for op in ops:
            with contextlib.suppress(BaseException):
                await op.task
