"""The wallet watches when the operator does not.

With twenty deals nobody watches each one, and a daemon's deadline warnings reach no one while
no screen is attached. So, once a second, under the operator's `policy.toml`:

- what is safe and needs no secret happens by itself: a payer's refund of whatever the rail
  holds once the refund window opens (through the same gate and re-checks as the operator's
  own refund), and a heartbeat in each open deal's room every `heartbeat_every_s` (an optional
  write, paced under the write budget, never one that would create a room);
- what needs the operator raises an alert (see `AlertDesk`): the last safe moment to act on a
  deal where the next move is ours (a payee's reveal before `claimByMs`, a payer's lock), and a
  rail that disagrees with the transcript. Approvals waiting are raised by the agents' desk.

Nothing here reveals a secret, locks money or answers an approval.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable

from tclk_tui.engine.alerts import AlertDesk
from tclk_tui.engine.deadlines import moment_text
from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.deal.book import DealBook
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.events import EventBus, Notice
from tclk_tui.engine.gates import GateRefused
from tclk_tui.protocol.errors import TclkError
from tclk_tui.technocore.budget import traffic
from tclk_tui.technocore.errors import VenueError

log = logging.getLogger(__name__)

TICK_S = 1.0
RETRY_S = 30.0  # a refund or heartbeat that could not be done now is tried again after this
LEVEL_WORDS = {"soon": "soon", "danger": "DANGER", "past": "PAST"}


def _short(deal_id: str) -> str:
    return deal_id[:10] + "…"


class Autopilot:
    def __init__(self, *, book: DealBook, alerts: AlertDesk, events: EventBus,
                 now_ms: Callable[[], int], room_exists: Callable[[str], bool]) -> None:
        self.book = book
        self.alerts = alerts
        self.events = events
        self.now_ms = now_ms
        self._room_exists = room_exists
        self._tried: dict[tuple[str, str], int] = {}  # (deal, what) -> when last tried
        self._failed: dict[tuple[str, str], str] = {}

    async def run(self, closed: Callable[[], bool]) -> None:
        while not closed():
            await self.tick()
            await asyncio.sleep(TICK_S)

    async def tick(self) -> None:
        now = self.now_ms()
        policy = self.alerts.policy
        for deal in list(self.book):
            try:
                self.alert_for(deal, now)
                if policy.auto_refund and self._refund_due(deal, now):
                    await self._refund(deal)
                if policy.heartbeat_every_s and self._heartbeat_due(deal, now):
                    await self._heartbeat(deal)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # one deal's trouble never stops the watch over the rest
                self._say_once(deal.deal_id, "watch", f"watching deal {_short(deal.deal_id)} "
                               f"failed: {exc}")

    # -- alerts --------------------------------------------------------------------------------

    def alert_for(self, deal: DealSession, now: int) -> None:
        if deal.observer:
            return
        disagreement = deal.disagreement()
        if disagreement:
            digest = hashlib.sha256(disagreement.encode()).hexdigest()[:12]
            self.alerts.raise_alert(
                f"rail:{deal.deal_id}:{digest}", "rail",
                f"deal {_short(deal.deal_id)}: the rail and the transcript disagree: "
                f"{disagreement}; look at the deal and reconcile", deal.deal_id)
        state, role = deal.state, deal.role
        ours = (state.status == "locked" and role == "payee") or (
            state.status == "accepted" and role == "payer")
        if not ours:
            return
        level = deal.deadlines().level
        if level not in LEVEL_WORDS:
            return
        offer = deal.offer
        if state.status == "locked":
            if level == "past":
                text = (f"the last safe moment to reveal passed at "
                        f"{moment_text(offer['claimByMs'], now)}: a reveal now is late and "
                        f"races the payer's refund, which opens at "
                        f"{moment_text(offer['refundAfterMs'], now)}")
            else:
                text = (f"your last safe moment to reveal is "
                        f"{moment_text(offer['claimByMs'], now)}: reveal before it to claim")
        else:
            text = (f"lock before {moment_text(offer['claimByMs'], now)}, while the payee "
                    "still has a window to claim")
        self.alerts.raise_alert(f"deadline:{deal.deal_id}:{state.status}:{level}", "deadline",
                                f"deal {_short(deal.deal_id)}: {LEVEL_WORDS[level]}: {text}",
                                deal.deal_id)

    # -- refunds -------------------------------------------------------------------------------

    def _refund_due(self, deal: DealSession, now: int) -> bool:
        if deal.role != "payer" or deal.observer or now < deal.offer["refundAfterMs"]:
            return False
        if now - self._tried.get((deal.deal_id, "refund"), -RETRY_S * 1000) < RETRY_S * 1000:
            return False
        return "refund" in deal.actions()

    async def _refund(self, deal: DealSession) -> None:
        self._tried[(deal.deal_id, "refund")] = self.now_ms()
        request = deal.request_refund()
        if not request.allowed:
            return
        try:
            await deal.confirm(request)  # the gate's re-checks, the rail's word first
        except (GateRefused, EngineError, TclkError, VenueError) as exc:
            self._say_once(deal.deal_id, "refund", f"deal {_short(deal.deal_id)}: the refund "
                           f"by itself did not go through: {exc}; it is tried again")
            return
        rail, ref = deal.state.rail or "the rail", deal.state.rail_ref or ""
        self.alerts.raise_alert(f"refunded:{deal.deal_id}", "auto",
                                f"deal {_short(deal.deal_id)}: refunded by itself on {rail} "
                                f"(ref {ref[:24]}): the refund window was open and nobody "
                                "had taken the money back", deal.deal_id)

    # -- heartbeats ----------------------------------------------------------------------------

    def _heartbeat_due(self, deal: DealSession, now: int) -> bool:
        state = deal.state
        if state.status not in ("accepted", "locked") or deal.observer or deal.room is None:
            return False
        if not deal.room_records and not self._room_exists(deal.room):
            return False  # a heartbeat never creates a room: that is the lock's to spend
        every_ms = self.alerts.policy.heartbeat_every_s * 1000
        if now - self._tried.get((deal.deal_id, "heartbeat"), -every_ms) < min(
                every_ms, RETRY_S * 1000):
            return False
        mine = [r.timestamp_ms or 0 for r in (*deal.board_records, *deal.room_records)
                if r.sender == deal.ctx.did]
        return now - max(mine, default=0) >= every_ms

    async def _heartbeat(self, deal: DealSession) -> None:
        self._tried[(deal.deal_id, "heartbeat")] = self.now_ms()
        try:
            with traffic("optional"):
                await deal.heartbeat(None)
        except (GateRefused, EngineError, TclkError, VenueError) as exc:
            log.info("no heartbeat for deal %s now: %s", deal.deal_id, exc)

    def _say_once(self, deal_id: str, what: str, text: str) -> None:
        if self._failed.get((deal_id, what)) != text:
            self._failed[(deal_id, what)] = text
            self.events.publish(Notice("warning", text, deal_id=deal_id))


__all__ = ["Autopilot"]
