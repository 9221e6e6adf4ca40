"""The slice of the engine the app talks to, as structural types.

The app holds no protocol logic; it asks these and renders the view values they return. Written
against the engine contract (Wallet, OffersBoard, DealSession, ArbitrationDesk) so the faces can
be built and exercised without importing the engine's I/O.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal, Protocol

from tclk_tui.engine.events import Alert, Event, VenueStatus
from tclk_tui.engine.gates import GateRequest
from tclk_tui.engine.venue_budget import VenueBudgetView
from tclk_tui.engine.views import (
    BoardQuery,
    DealView,
    FieldProblem,
    HeldSecret,
    OfferDraft,
    OfferRow,
    VaultStatus,
)

ShareKind = Literal["preimage", "witness"]


class EventsPort(Protocol):
    def subscribe(self) -> asyncio.Queue[Event]: ...

    def unsubscribe(self, queue: asyncio.Queue[Event]) -> None: ...


class BoardPort(Protocol):
    def query(self, q: BoardQuery) -> list[OfferRow]: ...

    def get(self, offer_id: str) -> OfferRow | None: ...

    def rejected(self) -> dict[str, int]: ...

    def __len__(self) -> int: ...



class DealPort(Protocol):
    deal_id: str

    def view(self) -> DealView: ...

    def request_lock(self, rail: str | None = None) -> GateRequest: ...

    def request_reveal(self) -> GateRequest: ...

    def request_cancel(self) -> GateRequest: ...

    def request_refund(self) -> GateRequest: ...

    async def confirm(self, request: GateRequest, *, typed_code: str | None = None,
                      acknowledge_late: bool = False) -> DealView: ...

    async def heartbeat(self, note: str | None = None) -> DealView: ...

    async def receipt(self) -> DealView: ...

    async def reconcile(self) -> DealView: ...


class CombineResultLike(Protocol):
    @property
    def value(self) -> str: ...

    @property
    def opens(self) -> bool | None: ...


class VoteCommitLike(Protocol):
    @property
    def commitment(self) -> str: ...

    @property
    def salt(self) -> str: ...


class TallyLike(Protocol):
    @property
    def commits(self) -> Mapping[str, str]: ...

    @property
    def reveals(self) -> Mapping[str, str]: ...

    @property
    def counts(self) -> Mapping[str, int]: ...

    @property
    def problems(self) -> Sequence[str]: ...


class ArbitrationPort(Protocol):
    def split(self, kind: ShareKind, secret: str, parts: int) -> list[str]: ...

    def combine(self, kind: ShareKind, shares: list[str],
                statement: str | None = None) -> CombineResultLike: ...

    def commit_vote(self, contract: str, verdict: str) -> VoteCommitLike: ...

    def verify_vote(self, commitment: str, contract: str, verdict: str, salt: str) -> bool: ...

    async def tally(self, contract: str, jurors: list[str] | None = None) -> TallyLike: ...


class WalletPort(Protocol):
    @property
    def profile(self) -> str: ...

    @property
    def did(self) -> str: ...

    @property
    def venue_url(self) -> str: ...

    @property
    def venue_status(self) -> VenueStatus: ...

    def venue_budget(self) -> VenueBudgetView | None: ...

    def take_alerts(self) -> list[Alert]: ...

    @property
    def events(self) -> EventsPort: ...

    @property
    def board(self) -> BoardPort: ...

    @property
    def arbitration(self) -> ArbitrationPort: ...

    def now_ms(self) -> int: ...

    def validate_offer_draft(self, draft: OfferDraft) -> list[FieldProblem]: ...

    async def post_offer(self, draft: OfferDraft) -> DealView: ...

    async def accept_offer(self, offer_id: str, *, rail: str | None = None) -> DealView: ...

    def deals(self) -> list[DealView]: ...

    def deal(self, deal_id: str) -> DealPort: ...

    def vault_status(self) -> VaultStatus: ...

    def held_secrets(self) -> list[HeldSecret]: ...

    def request_seed_backup(self) -> GateRequest: ...

    def confirm_seed_backup(self, request: GateRequest, typed_code: str = "") -> str: ...

    def request_seed_restore(self, text: str) -> GateRequest: ...

    def confirm_seed_restore(self, request: GateRequest, typed_code: str = "") -> str: ...

    def request_secret_reveal(self, deal_id: str) -> GateRequest: ...

    def confirm_secret_reveal(self, request: GateRequest, typed_code: str) -> str: ...


if TYPE_CHECKING:  # mypy proves the real engine satisfies these ports; nothing runs here
    from tclk_tui.engine.arbitration import ArbitrationDesk
    from tclk_tui.engine.board import OffersBoard
    from tclk_tui.engine.deal import DealSession
    from tclk_tui.engine.wallet import Wallet

    def _real_wallet(wallet: Wallet) -> WalletPort:
        return wallet

    def _real_board(board: OffersBoard) -> BoardPort:
        return board

    def _real_deal(deal: DealSession) -> DealPort:
        return deal

    def _real_desk(desk: ArbitrationDesk) -> ArbitrationPort:
        return desk
