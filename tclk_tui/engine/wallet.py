"""The wallet: one profile's identity, vault, journal, venue client and rails, and the parts
that work on them, composed.

Each part holds one concern: `RoomSync` follows the venue and routes what it reads,
`DealBook` holds the deals and their journal rows, `OfferDesk` posts and accepts offers,
`SecretGates` shows and replaces secrets behind gates, `Capabilities` reads and advertises
DID notes, `DeadlineWatch` raises deadline warnings, `ReadScheduler` is the one reader of the
venue, and `Autopilot` does what is safe by itself (a refund once its window opens, heartbeats)
and raises alerts for what needs the operator. Everything a face does is one call here,
delegated to the part that owns it. How a wallet is opened (its lock, journal, identity,
rails, the journal replayed and the venue's first read) is `engine.wallet_open`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from tclk_tui.engine.alerts import AlertDesk
from tclk_tui.engine.arbitration import desk as arb
from tclk_tui.engine.arbitration.referee import RefereeDesk, RefereeParts
from tclk_tui.engine.background import Background
from tclk_tui.engine.board.capabilities import Capabilities
from tclk_tui.engine.board.offer_desk import OfferDesk
from tclk_tui.engine.board.offers_board import OffersBoard
from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.deal.autopilot import Autopilot
from tclk_tui.engine.deal.book import DealBook
from tclk_tui.engine.deal.deadline_watch import DeadlineWatch
from tclk_tui.engine.deal.fee_waits import FeeWaitDesk
from tclk_tui.engine.deal.rail_watch import RailWatch
from tclk_tui.engine.errors import EngineError, ProfileBusy
from tclk_tui.engine.events import Alert, EventBus, VenueStatus
from tclk_tui.engine.evidence import Evidence
from tclk_tui.engine.gates import GateRequest, StatedGates
from tclk_tui.engine.money import money_reader
from tclk_tui.engine.secrets.gates import SecretGates
from tclk_tui.engine.secrets.identity_key import IDENTITY_ENTRY
from tclk_tui.engine.secrets.keeper import VaultKeeper
from tclk_tui.engine.sync import private_deals
from tclk_tui.engine.sync.mailbox import PrivateMail
from tclk_tui.engine.sync.outbox import Outbox
from tclk_tui.engine.sync.read_scheduler import ReadScheduler
from tclk_tui.engine.sync.room_sync import RoomSync
from tclk_tui.engine.sync.venue_budget import (
    VenueBudgetView,
    accept_needs_rooms,
    room_refusal,
    rooms_refusal,
)
from tclk_tui.engine.views import (
    DealView,
    FieldProblem,
    HeldSecret,
    OfferDraft,
    VaultStatus,
)
from tclk_tui.engine.wallet_open import (
    one_shot_refusal,
    open_wallet,
    take_profile_lock,
    wall_clock_ms,
)
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.frames import OfferFrame
from tclk_tui.protocol.naming import deal_room
from tclk_tui.protocol.panel import check_statement, panel_of
from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.rails.base import SettlementRail
from tclk_tui.store.journal import Journal
from tclk_tui.store.profile_lock import ProfileLock
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.identity import Identity
from tclk_tui.vault.seed import Vault


@dataclass
class _Ctx:
    """The slice of the wallet a DealSession sees (engine.ports.DealContext)."""

    did: str
    events: EventBus
    publisher: Outbox
    secrets: VaultKeeper
    rails: dict[str, SettlementRail]
    now_ms: Callable[[], int]
    stated: StatedGates  # the gate requests the engine stated: a confirmation answers one
    # Is a contract's statement the one its offer's panel published? (None: no panel)
    provenance: Callable[[dict, str | None], tuple[bool | None, str]] | None = None
    # Rails set aside in this wallet, with why (a one-shot process cannot hold a memory lock).
    refused_rails: Mapping[str, str] = field(default_factory=dict)
    # Why no line can be posted into a deal's room now (the venue's new-room budget), if so.
    room_refusal: Callable[[str | None], str | None] | None = None
    # Reads the sealed mail now (a payee's released secret may be waiting there).
    read_mail: Callable[[], Awaitable[int]] | None = None
    # Follows deal actions whose transaction waits for the fee (engine.deal.fee_waits).
    fee_waits: FeeWaitDesk | None = None


class Wallet:
    def __init__(self, *, profile: str, venue_url: str, vault: Vault, journal: Journal,
                 identity: Identity, client: VenueClient, rails: dict[str, SettlementRail],
                 clock_ms: Callable[[], int],
                 refused_rails: Mapping[str, str] | None = None) -> None:
        self.profile = profile
        self.venue_url = venue_url
        self.vault = vault
        self.journal = journal
        self.identity = identity
        self.client = client
        self.rails = rails
        self.refused_rails = dict(refused_rails or {})
        self._clock = clock_ms
        # True when this opening made the profile's master seed: the faces then say where its
        # secrets live and ask for a seed backup, once.
        self.first_run = False
        self.events = EventBus()
        self.board = OffersBoard(identity.did, amount_text=money_reader(self.rails))
        self.keeper = VaultKeeper(vault)
        self.background = Background()
        self.outbox = Outbox(journal, client, deal_row_id=lambda d: self.book.row_id(d),
                             secret_for=self.keeper.deal_secret,
                             on_record=lambda r: self.rooms.on_own_record(r))
        self.stated = StatedGates()
        self.fee_waits = FeeWaitDesk(self.events, self.background, rails)
        ctx = _Ctx(did=identity.did, events=self.events, publisher=self.outbox,
                   secrets=self.keeper, rails=rails, now_ms=self.now_ms, stated=self.stated,
                   refused_rails=self.refused_rails,
                   room_refusal=lambda room: room_refusal(client.budget, room),
                   provenance=lambda offer, statement: check_statement(
                       offer, statement, self.board.panel_lines(offer["id"])),
                   read_mail=lambda: self.check_mail(), fee_waits=self.fee_waits)
        self.book = DealBook(journal, self.keeper, ctx, self.events)
        self.evidence = Evidence(journal, self.keeper, self.book.in_room)
        self.capabilities = Capabilities(client, self.board, self.events, self.background)
        self.reads = ReadScheduler(client, closed=lambda: self.background.closed,
                                   on_error=lambda room, exc: self.rooms.follow_failed(room,
                                                                                       exc))
        self.rooms = RoomSync(did=identity.did, client=client, journal=journal,
                              board=self.board, book=self.book, evidence=self.evidence,
                              events=self.events, background=self.background,
                              now_ms=self.now_ms,
                              on_new_senders=self.capabilities.look_up_new_senders,
                              reads=self.reads)
        self.watch = DeadlineWatch(self.board, self.book, self.events, self.now_ms)
        self.alerts = AlertDesk(journal, self.events, self.now_ms, self.background.spawn)
        self.autopilot = Autopilot(
            book=self.book, alerts=self.alerts, events=self.events, now_ms=self.now_ms,
            room_exists=lambda room: client.budget is not None
            and room in client.budget.known_rooms)
        self.offers = OfferDesk(did=identity.did, journal=journal, board=self.board,
                                book=self.book, keeper=self.keeper, outbox=self.outbox,
                                events=self.events, rails=rails, now_ms=self.now_ms,
                                refused_rails=self.refused_rails)
        self.gates = SecretGates(vault, self.keeper, self.book, self.now_ms, self.stated)
        self.rail_watch = RailWatch(self.book, rails, self.events)
        self._owned_rails: list[SettlementRail] = []  # rails this wallet opened and closes
        self.mail = PrivateMail(identity=identity, vault=vault, journal=journal, client=client,
                                publisher=self.outbox, events=self.events, now_ms=self.now_ms)
        self.referee = RefereeDesk(RefereeParts(
            did=identity.did, venue_url=self.venue_url, vault=vault, board=self.board,
            settings=journal.settings, stated=self.stated, outbox=self.outbox, mail=self.mail,
            events=self.events, rails=rails, client=client, evidence=self.evidence,
            sync=self.sync, now_ms=self.now_ms))
        self.mail.expected = lambda: private_deals.expected_senders(self)
        self._lock: ProfileLock | None = None

    def __repr__(self) -> str:
        return f"Wallet(profile={self.profile!r}, did={self.did!r}, venue={self.venue_url!r})"

    # -- opening and closing --------------------------------------------------------------------

    # The opening sequence (the profile lock, the journal, the identity, the rails, then the
    # journal replayed and the venue's first read) is `engine.wallet_open.open_wallet`.
    open = classmethod(open_wallet)

    def owns(self, *, lock: ProfileLock | None = None,
             rails: list[SettlementRail] | None = None) -> None:
        """Hand this wallet what its `close` gives back: the rails the opening started (closed
        with it) and the profile's lock (released last, after the journal)."""
        if rails is not None:
            self._owned_rails = list(rails)
        if lock is not None:
            self._lock = lock

    async def close(self) -> None:
        if self.background.closed:
            return
        await self.background.close()
        await self.client.aclose()
        for rail in self._owned_rails:
            with contextlib.suppress(Exception):
                await rail.aclose()
        self.journal.close()
        if self._lock is not None:
            self._lock.release()  # last: the journal is closed before anyone else may open it

    async def __aenter__(self) -> Wallet:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def did(self) -> str:
        return self.identity.did

    def now_ms(self) -> int:
        return int(self._clock())

    @property
    def venue_status(self) -> VenueStatus:
        return self.rooms.status

    # -- following the venue --------------------------------------------------------------------

    async def sync(self) -> None:
        """Read the board and every live deal room once, whole, and fold them in."""
        await self.rooms.sync()

    def start_following(self) -> None:
        self.rooms.start_following()
        self.background.spawn(self.reads.run())
        self.background.spawn(self.watch.run(lambda: self.background.closed))
        self.background.spawn(self.autopilot.run(lambda: self.background.closed))
        self.background.spawn(self.rail_watch.run(lambda: self.background.closed))
        self.background.spawn(self.fee_waits.run(lambda: list(self.book),
                                                 lambda: self.background.closed))
        self.capabilities.look_up_new_senders()
        self.background.spawn(private_deals.run(self))

    def tick(self) -> None:
        """Expire offers and raise deadline warnings; the faces call nothing else per second."""
        self.watch.tick()

    async def watch_rails(self) -> None:
        """Ask value-moving rails about live locks now (the background does every 2 s)."""
        await self.rail_watch.once()

    # -- offers and deals -----------------------------------------------------------------------

    def validate_offer_draft(self, draft: OfferDraft) -> list[FieldProblem]:
        return self.offers.validate(draft)

    async def post_offer(self, draft: OfferDraft) -> DealView:
        await self.rooms.first_read.wait()  # the board is read whole before anything is added
        self._rooms_for("this offer", 1 if draft.role == "payer" else 0)
        return await self.offers.post(draft)

    def _rooms_for(self, what: str, needed: int) -> None:
        """Refuse what would promise a deal a room the venue will not let us create."""
        why = rooms_refusal(self.book, self.client.budget, needed=needed, what=what)
        if why is not None:
            raise EngineError(why)

    def take_alerts(self) -> list[Alert]:
        """The alerts no face has shown yet (raised while none was attached, or just now);
        they count as shown from here on."""
        return self.alerts.take_unseen()

    def venue_budget(self) -> VenueBudgetView | None:
        """This wallet's share of the venue's budgets, what is left of it now, and how the
        followed rooms are read."""
        budget = self.client.budget
        if budget is None:
            return None
        rooms = self.reads.rooms()
        return VenueBudgetView(budget=budget.view(),
                               waiting=tuple(r.room for r in rooms if r.waiting),
                               scheduled=sum(1 for r in rooms if not r.waiting),
                               dropped=self.reads.dropped)

    def accept_refusal(self, offer_id: str) -> str | None:
        """Why the offer cannot be accepted now (`OfferDesk.accept_refusal`), or None."""
        return self.offers.accept_refusal(offer_id)

    async def accept_offer(self, offer_id: str, *, rail: str | None = None,
                           private: bool = False) -> DealView:
        """Accept on the board, or with `private` sealed to the offerer's mailbox (SPEC §2):
        the contract id and the deal room derive the same either way. Waits for the first
        read of the board: an offer is accepted as the whole ring has it."""
        await self.rooms.first_read.wait()
        offer = self.board.offer_frame(offer_id)
        needed = accept_needs_rooms(offer) if offer is not None else 0
        if not private:
            self._rooms_for("this accept", needed)
            return await self.offers.accept(offer_id, rail=rail)
        # The board first: an accept already there binds the offer, and nobody can see ours.
        await self.rooms.sync_board()
        offer = self.board.offer_frame(offer_id)
        if offer is not None:
            # Refused before anything is journaled. The sealed channel is a new room; the
            # offerer's mailbox may be one too.
            peer = await self.mail.peer_record(offer["from"])
            budget = self.client.budget
            needed = accept_needs_rooms(offer) + 1 + (
                budget is not None and peer.mailbox not in budget.known_rooms)
            self._rooms_for("this private accept", needed)
        return await self.offers.accept(offer_id, rail=rail,
                                        deliver=private_deals.PrivateAccept(self))

    def deals(self) -> list[DealView]:
        return self.book.views()

    def deal(self, deal_id: str) -> DealSession:
        return self.book.find(deal_id)

    # -- arbitration ----------------------------------------------------------------------------

    async def _room_records(self, contract: str) -> list[TranscriptRecord]:
        try:
            room = deal_room(contract.strip())
        except TclkError as exc:
            raise arb.ArbitrationError(str(exc)) from None
        export = await self.client.export(room)
        offer = self.offer_of_contract(contract.strip())
        try:
            panel = panel_of(offer) if offer is not None else None
        except TclkError:
            panel = None
        # The ring forgets; the panel's votes read before stay.
        return self.evidence.with_votes(room, export.records,
                                        panel.members if panel is not None else ())

    async def _post_vote_line(self, contract: str, line: str) -> None:
        await self.outbox.publish(deal_room(contract), line)

    @property
    def arbitration(self) -> arb.ArbitrationDesk:
        return arb.ArbitrationDesk(self._room_records, self._post_vote_line,
                                   self.offer_of_contract)

    def offer_of_contract(self, contract: str) -> OfferFrame | None:
        """The offer a contract was accepted from, if this wallet knows it (its deals, then
        the board's accepts)."""
        for deal in self.book:
            if deal.state.contract == contract:
                return deal.offer
        return self.board.offer_of_contract(contract)

    # -- private mail and committees -----------------------------------------------------------

    async def check_mail(self) -> int:
        """Open sealed deliveries now (the follower does this every second)."""
        return await private_deals.poll_letters(self)

    def committee_overview(self) -> list[dict]:
        """Our deals as payee that name a committee: whose shares are in, whose are missing."""
        return private_deals.committee_overview(self)

    # -- vault and secret gates -----------------------------------------------------------------

    def vault_status(self) -> VaultStatus:
        return self.gates.vault_status()

    def held_secrets(self) -> list[HeldSecret]:
        return self.gates.held_secrets()

    def request_seed_backup(self) -> GateRequest:
        return self.gates.request_seed_backup()

    def confirm_seed_backup(self, request: GateRequest, typed_code: str = "") -> str:
        return self.gates.confirm_seed_backup(request, typed_code)

    def request_seed_restore(self, text: str) -> GateRequest:
        return self.gates.request_seed_restore(text)

    def confirm_seed_restore(self, request: GateRequest, typed_code: str = "") -> str:
        return self.gates.confirm_seed_restore(request, typed_code)

    def request_secret_reveal(self, deal_id: str) -> GateRequest:
        return self.gates.request_secret_reveal(deal_id)

    def confirm_secret_reveal(self, request: GateRequest, typed_code: str) -> str:
        return self.gates.confirm_secret_reveal(request, typed_code)

    # -- capability hints -----------------------------------------------------------------------

    async def refresh_capabilities(self, limit: int = 50,
                                   dids: list[str] | None = None) -> None:
        """Read DID notes of board senders (a routing hint, never proof)."""
        await self.capabilities.refresh(limit, dids)

    async def advertise(self) -> None:
        """Publish (or keep current) this wallet's DID note: the rails it settles on, its
        mailbox, and the signed e2e: record peers seal to."""
        await self.mail.publish_note(sorted(self.rails))


__all__ = ["IDENTITY_ENTRY", "EngineError", "ProfileBusy", "Wallet", "one_shot_refusal",
           "take_profile_lock", "wall_clock_ms"]
