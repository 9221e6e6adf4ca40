"""Deal actions whose transaction waits for the fee, followed to the end.

A rail answers a lock, claim or refund whose transaction the profile's fee cap cannot pay now
with `FeeWaiting`: the operation is taken, and waits in the account's queue (journaled by the
rail). The deal action is then confirmed but not finished: its frame (the lock, the reveal, the
refund) can be posted only once the rail's operation is done. This desk follows each such wait
in the wallet's background: it tells the faces (a notice with why it waits and how long it can,
the deal view's `fee_wait`), posts the frame once the transaction is mined, says so when it
ended unsent (its deadline passed, the operator cancelled it), drops a wait whose deal no
longer allows its action (the deal was cancelled meanwhile), and in a wallet that outlives the
call (the daemon, the app) takes up the waits the rail's journal holds from before a restart.
A one-shot CLI call leaves its wait journaled for the next such wallet.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from tclk_tui.engine.background import Background
from tclk_tui.engine.events import EventBus, Notice
from tclk_tui.rails.base import FeeWait, FeeWaiting, SettlementRail

if TYPE_CHECKING:
    from tclk_tui.engine.deal import DealSession

__all__ = ["FeeWaitDesk"]
log = logging.getLogger(__name__)

CHECK_S = 2.0

Finish = Callable[[Any], Awaitable[None]]


class FeeWaitDesk:
    def __init__(self, events: EventBus, background: Background,
                 rails: Mapping[str, SettlementRail]) -> None:
        self.events = events
        self.background = background
        self.rails = rails
        self.one_shot = False  # a wallet that lives for one call: its waits go on elsewhere
        self._followed: set[tuple[str, str]] = set()  # (deal id, rail action)
        self._resuming: set[tuple[str, str]] = set()
        self._said: dict[tuple[str, str], str] = {}  # the last failure said, per wait

    def follow(self, deal: DealSession, action: str, waiting: FeeWaiting,
               finish: Finish) -> None:
        """The rail took `action` for `deal` and its transaction waits: say so, and finish the
        deal action (post its frame) in the background once it is done."""
        key = (deal.deal_id, action)
        self.events.publish(Notice("warning", waiting.wait.text, deal_id=deal.deal_id))
        deal.announce()
        if key in self._followed:
            return  # asked again while it waits: the rail joined the same operation
        self._followed.add(key)
        self.background.spawn(self._finish(deal, action, waiting, finish))

    def following(self, deal_id: str, action: str) -> bool:
        return (deal_id, action) in self._followed

    async def _finish(self, deal: DealSession, action: str, waiting: FeeWaiting,
                      finish: Finish) -> None:
        try:
            try:
                result = await waiting.done
            except Exception as exc:  # dropped unsent, cancelled, or refused on the way out
                log.info("deal %s: the %s that waited for the fee ended unsent (%s)",
                         deal.deal_id, action, getattr(exc, "code", type(exc).__name__))
                self.events.publish(Notice("warning", f"the {action} that waited for the fee "
                                           f"ended without being sent: "
                                           f"{str(exc).removeprefix('tclk: ')}",
                                           deal_id=deal.deal_id))
                return
            try:
                await finish(result)
            except Exception as exc:  # the frame could not be posted: the chain still did it
                self.events.publish(Notice(
                    "error", f"the {action} went through on the rail once the fee fit, but "
                    f"its frame was not posted: {str(exc).removeprefix('tclk: ')}",
                    deal_id=deal.deal_id))
                return
            self.events.publish(Notice("info", f"the {action} waited for the fee and is done",
                                       deal_id=deal.deal_id))
        finally:
            self._followed.discard((deal.deal_id, action))
            deal.announce()

    # -- the waits the rails journaled ------------------------------------------------------

    def waits(self) -> Iterable[tuple[str, FeeWait]]:
        for rail_id, rail in self.rails.items():
            for wait in rail.fee_waits():
                yield rail_id, wait

    async def run(self, deals: Callable[[], Iterable[DealSession]],
                  closed: Callable[[], bool]) -> None:
        """In a wallet that outlives the call (the daemon, the app): take up the journaled
        waits, then keep dropping those whose deal no longer allows their action."""
        while not closed():
            await self.once(list(deals()))
            await asyncio.sleep(CHECK_S)

    async def once(self, deals: list[DealSession]) -> None:
        by_contract = {d.state.contract: d for d in deals if d.state.contract}
        for rail_id, wait in list(self.waits()):
            deal = by_contract.get(wait.contract)
            if deal is None:
                continue  # a contract no deal here knows (its deal was never journaled)
            why = deal.fee_wait_unwanted(wait.action)
            if why is not None:
                if self.rails[rail_id].cancel_fee_wait(wait.contract, wait.action):
                    self.events.publish(Notice("warning", f"the {wait.action} waiting for the "
                                               f"fee is dropped unsent: {why}",
                                               deal_id=deal.deal_id))
                    deal.announce()
                continue
            key = (deal.deal_id, wait.action)
            if not wait.held and key not in self._followed and key not in self._resuming:
                self._resuming.add(key)
                self.background.spawn(self._resume(deal, rail_id, wait))

    async def _resume(self, deal: DealSession, rail_id: str, wait: FeeWait) -> None:
        """A wait journaled before a restart: the deal action goes on where it stood (the rail
        takes up the same journaled wait; nothing is signed twice)."""
        log.info("deal %s: taking up its %s that waits for the fee (journaled)", deal.deal_id,
                 wait.action)
        key = (deal.deal_id, wait.action)
        try:
            await deal.resume_fee_wait(rail_id, wait.action)
        except Exception as exc:  # said once per distinct failure (a node down for a while)
            text = (f"the {wait.action} that waited for the fee could not be taken up again: "
                    f"{str(exc).removeprefix('tclk: ')}")
            if self._said.get(key) != text:
                self._said[key] = text
                self.events.publish(Notice("warning", text, deal_id=deal.deal_id))
        else:
            self._said.pop(key, None)
        finally:
            self._resuming.discard(key)
