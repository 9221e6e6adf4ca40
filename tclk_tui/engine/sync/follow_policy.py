"""How eagerly each followed room is read: the rules the read scheduler asks (see `Want`).

A deal's room is `HOT` while the wallet waits for the counterparty's next move (a payee for the
lock, a payer for the reveal) and that move is likely soon (the room changed within
`HOT_WINDOW_S`), or while a deadline is near, and just after it settled (the counterparty's
receipt follows at once); `LIVE` while the deal is open otherwise; `IDLE` once settled a
while, and dropped (`DROP`) when both parties' receipts are in or nothing has happened in it
for `QUIET_AFTER_SETTLED_MS` since. So a restart follows only live rooms, and a
wallet that settled fifty deals reads none of their rooms.
"""

from __future__ import annotations

from collections.abc import Iterable

from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.sync.read_scheduler import Want

HOT_WINDOW_S = 60.0
RECEIPT_WINDOW_S = 20.0
QUIET_AFTER_SETTLED_MS = 10 * 60_000


def last_activity_ms(deal: DealSession) -> int:
    """The venue time of the deal's newest record (offer, board or room)."""
    newest = deal.offer_record.timestamp_ms or 0
    for records in (deal.board_records, deal.room_records):
        if records:
            newest = max(newest, max(r.timestamp_ms or 0 for r in records))
    return newest


def their_move(deal: DealSession) -> bool:
    """Whether the next step is the counterparty's: the payee waits for the lock, the payer
    for the reveal."""
    status, role = deal.state.status, deal.role
    return (status == "accepted" and role == "payee") or (status == "locked"
                                                          and role == "payer")


def settled_for_good(deal: DealSession, now_ms: int) -> bool:
    """A settled deal whose room need not be followed again: its room is no longer live
    (both receipts are in, or the venue has forgotten the room: `DealSession.room_live`), or
    nothing has happened in it for the quiet window. A missing receipt is still read at each
    sync while the room is live."""
    if not deal.state.terminal:
        return False
    return not deal.room_live() or now_ms - last_activity_ms(deal) >= QUIET_AFTER_SETTLED_MS


def deal_room_want(deal: DealSession, now_ms: int, quiet_s: float) -> Want:
    if deal.state.terminal:
        if settled_for_good(deal, now_ms):
            return Want.DROP
        # The counterparty's receipt usually follows the settlement at once.
        if quiet_s < RECEIPT_WINDOW_S:
            return Want.HOT
        return Want.LIVE if quiet_s < HOT_WINDOW_S else Want.IDLE
    if deal.observer:
        return Want.IDLE
    if deal.deadlines().level in ("soon", "danger"):
        return Want.HOT
    if their_move(deal):
        return Want.HOT if quiet_s < HOT_WINDOW_S else Want.LIVE
    return Want.LIVE


def board_want(deals: Iterable[DealSession], did: str, now_ms: int) -> Want:
    """The board is `HOT` while an offer of ours posted within the hot window waits for an
    accept there, `LIVE` otherwise (new offers, accepts of older ones)."""
    for deal in deals:
        if deal.state.status == "proposed" and deal.offer["from"] == did and \
                now_ms - (deal.offer_record.timestamp_ms or 0) < HOT_WINDOW_S * 1000 and \
                now_ms < deal.offer["expiresMs"]:
            return Want.HOT
    return Want.LIVE


def mailbox_want(deals: Iterable[DealSession]) -> Want:
    """Sealed deliveries (a private accept, a referee's release) are expected only while some
    deal or offer of ours is open."""
    return Want.LIVE if any(not d.state.terminal for d in deals) else Want.IDLE


__all__ = ["HOT_WINDOW_S", "QUIET_AFTER_SETTLED_MS", "board_want", "deal_room_want",
           "mailbox_want", "settled_for_good", "their_move"]
