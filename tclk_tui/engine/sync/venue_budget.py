"""The wallet's share of the venue's per-address budgets: how it is set, kept and respected.

Wallets on one host share one client address, and the venue budgets per address (4 waiting
reads, 120 reads and 30 writes a minute, 20 new rooms a day by default). Each wallet takes
`1/share` of every budget: `share` is 2 by default (the demo and its counterparty; a daemon
and a CLI call beside it), and `TCLK_VENUE_SHARE` (or `Wallet.open(venue_share=...)`) names
how many wallets run on this address, so that together they stay within the venue's numbers.
A host with several addresses can instead give each wallet its own address and a share of 1.

The new-room bucket outlives the process (it refills over a day): its level is kept in the
journal, per venue. An accept or an offer that would leave a live deal without a room the
budget can create is refused before anything is signed (`rooms_refusal`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.errors import EngineError
from tclk_tui.store.journal import Journal
from tclk_tui.technocore.budget import (
    DEFAULT_SHARE,
    MAX_SHARE,
    BudgetView,
    VenueBudget,
    VenueLimits,
)
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import VenueError

SHARE_ENV = "TCLK_VENUE_SHARE"
ROOMS_SETTING = "venue.rooms:"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class VenueBudgetView:
    """The venue status's budget lines: this wallet's share and what is left, and how its
    followed rooms are read (which hold waiting reads, how many are read on a schedule)."""

    budget: BudgetView
    waiting: tuple[str, ...] = ()
    scheduled: int = 0
    dropped: int = 0


def share_from_env(environ: dict[str, str] | None = None) -> int:
    """`TCLK_VENUE_SHARE`: how many wallets share this host's address at the venue."""
    text = (environ if environ is not None else os.environ).get(SHARE_ENV, "").strip()
    if not text:
        return DEFAULT_SHARE
    if not text.isdigit() or not 1 <= int(text) <= MAX_SHARE:
        raise EngineError(f"{SHARE_ENV}={text[:20]!r}: name how many wallets share this "
                          f"host's address at the venue, a whole number from 1 to {MAX_SHARE}")
    return int(text)


def make_budget(journal: Journal, venue_url: str, share: int) -> VenueBudget:
    """The wallet's budget, its new-room bucket restored from the journal."""
    key = ROOMS_SETTING + venue_url
    state = None
    saved = journal.settings.get(key)
    if saved:
        try:
            level, stamp = (float(part) for part in saved.split())
            state = (level, stamp)
        except ValueError:
            state = None  # a row this wallet did not write: start from a full bucket

    def keep(level: float, stamp: float) -> None:
        journal.settings.set(key, f"{level:.6f} {stamp:.3f}")

    return VenueBudget(share=share, rooms_state=state, on_rooms=keep)


async def adopt_venue_limits(client: VenueClient) -> str | None:
    """Read `/config` (never rate limited) and take its numbers; None, or why not."""
    budget = client.budget
    if budget is None:
        return None
    try:
        settings = await client.config()
    except VenueError as exc:
        return f"the venue's /config could not be read ({exc}); the manual's limits hold"
    budget.adopt(VenueLimits.from_settings(settings.settings))
    return None


def rooms_promised(deals: Iterable[DealSession], budget: VenueBudget) -> int:
    """New rooms this wallet has promised: the room of each accepted deal it pays (its lock is
    the room's first line) that does not exist yet. An open offer promises none until it is
    accepted; a payer offer is refused only while no room is left beside these."""
    return sum(1 for deal in deals
               if deal.state.status == "accepted" and deal.role == "payer"
               and not deal.observer and deal.room not in budget.known_rooms)


def room_refusal(budget: VenueBudget | None, room: str | None) -> str | None:
    """Why a lock cannot be announced in `room` (it does not exist, and no new room can be
    made now): the gate refuses before anything is locked on the rail."""
    if budget is None or room is None or room in budget.known_rooms:
        return None
    why = budget.rooms_sentence(1)
    return None if why is None else f"the deal's room does not exist yet and {why}"


def rooms_refusal(deals: Iterable[DealSession], budget: VenueBudget | None, *,
                  needed: int, what: str) -> str | None:
    """Why `what` cannot be promised now (None: it can): it needs `needed` new rooms beside
    those live deals are promised."""
    if budget is None or needed <= 0:
        return None
    why = budget.rooms_sentence(needed, rooms_promised(deals, budget))
    if why is None:
        return None
    log.info("%s: refused for the venue's room budget: %s", what, why)
    return f"{what} is refused before anything is signed: {why}"


def accept_needs_rooms(offer: Mapping[str, Any]) -> int:
    """An accept of an offer whose role is payee makes us the payer, and our lock creates the
    deal's room (named after a contract id that exists only once the accept is built)."""
    return 1 if offer.get("role") == "payee" else 0


__all__ = ["SHARE_ENV", "VenueBudgetView", "accept_needs_rooms", "adopt_venue_limits",
           "make_budget", "room_refusal", "rooms_promised", "rooms_refusal", "share_from_env"]
