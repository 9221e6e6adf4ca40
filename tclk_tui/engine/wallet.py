"""The wallet: one profile's identity, vault, journal, venue client and rails, and the parts
that work on them, composed.

Each part holds one concern: `RoomSync` follows the venue and routes what it reads,
`DealBook` holds the deals and their journal rows, `OfferDesk` posts and accepts offers,
`SecretGates` shows and replaces secrets behind gates, `Capabilities` reads and advertises
DID notes, `DeadlineWatch` raises deadline warnings, `ReadScheduler` is the one reader of the
venue, and `Autopilot` does what is safe by itself (a refund once its window opens, heartbeats)
and raises alerts for what needs the operator. Everything a face does is one call here,
delegated to the part that owns it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tclk_tui.engine import arbitration as arb
from tclk_tui.engine import private_deals
from tclk_tui.engine.alerts import AlertDesk
from tclk_tui.engine.arbiter import RefereeDesk
from tclk_tui.engine.autopilot import Autopilot
from tclk_tui.engine.background import Background
from tclk_tui.engine.board import OffersBoard
from tclk_tui.engine.capabilities import Capabilities
from tclk_tui.engine.deadline_watch import DeadlineWatch
from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.deal_book import DealBook
from tclk_tui.engine.errors import EngineError, ProfileBusy
from tclk_tui.engine.events import Alert, EventBus, Notice, VenueStatus
from tclk_tui.engine.evidence import Evidence
from tclk_tui.engine.evm import load_evm_settings, open_evm_rail
from tclk_tui.engine.gates import GateRequest, StatedGates
from tclk_tui.engine.identity_key import IDENTITY_ENTRY, load_identity
from tclk_tui.engine.keeper import VaultKeeper
from tclk_tui.engine.mailbox import PrivateMail
from tclk_tui.engine.money import money_reader
from tclk_tui.engine.offers import OfferDesk
from tclk_tui.engine.outbox import Outbox
from tclk_tui.engine.paths import make_private_dir
from tclk_tui.engine.rail_watch import RailWatch
from tclk_tui.engine.read_scheduler import ReadScheduler
from tclk_tui.engine.room_sync import RoomSync
from tclk_tui.engine.secrets_gates import SecretGates
from tclk_tui.engine.venue_budget import (
    VenueBudgetView,
    accept_needs_rooms,
    adopt_venue_limits,
    make_budget,
    room_refusal,
    rooms_refusal,
    share_from_env,
)
from tclk_tui.engine.views import (
    DealView,
    FieldProblem,
    HeldSecret,
    OfferDraft,
    VaultStatus,
)
from tclk_tui.engine.watch_policy import load_policy
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.naming import deal_room
from tclk_tui.protocol.panel import check_statement, panel_of
from tclk_tui.protocol.transcript import TranscriptRecord
from tclk_tui.rails.base import SettlementRail
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rails.paper import PaperRail
from tclk_tui.store.journal import Journal
from tclk_tui.store.profile_lock import ProfileLock, ProfileLocked
from tclk_tui.technocore.budget import DEFAULT_SHARE
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import VenueError
from tclk_tui.technocore.identity import Identity
from tclk_tui.vault.errors import VaultError
from tclk_tui.vault.seed import Vault


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


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


def one_shot_refusal(rail_id: str) -> str:
    """Why a process-local rail cannot be chosen by a wallet that lives for one call."""
    return (f"the {rail_id} rail keeps its locks inside one process, and a CLI call without a "
            "daemon is a process that ends with the call: a lock made here could never be "
            "claimed, refunded or verified by a later call. Use paper to rehearse, or start "
            f"`tclk-tui daemon` (or the app): the CLI then goes through it, where {rail_id} "
            "lasts as long as the engine")


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
        ctx = _Ctx(did=identity.did, events=self.events, publisher=self.outbox,
                   secrets=self.keeper, rails=rails, now_ms=self.now_ms, stated=self.stated,
                   refused_rails=self.refused_rails,
                   room_refusal=lambda room: room_refusal(client.budget, room),
                   provenance=lambda offer, statement: check_statement(
                       offer, statement, self.board.panel_lines(offer["id"])),
                   read_mail=lambda: self.check_mail())
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
        self.referee = RefereeDesk(self)
        self.mail.expected = lambda: private_deals.expected_senders(self)
        self._lock: ProfileLock | None = None

    def __repr__(self) -> str:
        return f"Wallet(profile={self.profile!r}, did={self.did!r}, venue={self.venue_url!r})"

    # -- opening and closing --------------------------------------------------------------------

    @classmethod
    async def open(cls, profile: str, *, venue_url: str, data_dir: Path, vault: Vault,
                   clock_ms: Callable[[], int] = wall_clock_ms,
                   rails: Mapping[str, SettlementRail] | None = None,
                   follow: bool = True, offline: bool = False,
                   one_shot: bool = False, background: bool = False,
                   venue_share: int | None = None,
                   source_address: str | None = None) -> Wallet:
        """Open the profile (taking its lock) and, unless `offline`, read the venue once.

        `venue_share` is how many wallets share this host's address at the venue (default:
        `TCLK_VENUE_SHARE`, else 2; see engine.venue_budget), `source_address` the local
        address its requests leave from.

        `offline` is for a call that answers from this wallet's own facts (its DID): it
        contacts neither the venue nor a rail, so it works with the network down.
        `one_shot` is a wallet that lives for one call (the CLI without a daemon): rails whose
        locks live in the process (memory) are set aside, refused with the reason wherever
        one is chosen (an offer, an accept, a lock).
        `background` (with `follow`) returns once the journal is replayed and reads the venue
        in a background task, following it afterwards: the app is drawn at once and shows the
        board as its ring is checked. Offers and accepts wait for that first read."""
        profile_dir = Path(data_dir) / profile
        make_private_dir(profile_dir)
        lock = take_profile_lock(profile_dir)  # before the journal: one owner per profile
        try:
            share = venue_share if venue_share is not None else share_from_env()
            wallet = await cls._open_locked(profile, profile_dir, venue_url=venue_url,
                                            vault=vault, clock_ms=clock_ms, rails=rails,
                                            offline=offline, one_shot=one_shot,
                                            read_venue=not (background and follow),
                                            share=share, source_address=source_address)
        except BaseException:
            lock.release()
            raise
        wallet._lock = lock
        if follow and background and not offline:
            wallet.background.spawn(wallet._read_then_follow())
        elif follow:
            wallet.start_following()
        return wallet

    @classmethod
    async def _open_locked(cls, profile: str, profile_dir: Path, *, venue_url: str,
                           vault: Vault, clock_ms: Callable[[], int],
                           rails: Mapping[str, SettlementRail] | None,
                           offline: bool = False, one_shot: bool = False,
                           read_venue: bool = True, share: int = DEFAULT_SHARE,
                           source_address: str | None = None) -> Wallet:
        journal = Journal(profile_dir / "journal.sqlite3", clock=clock_ms)
        known = {row.did for row in journal.identities()}
        try:
            had_seed = vault.has_seed()
            if known and not had_seed and vault.backend.get(IDENTITY_ENTRY) is None:
                raise EngineError(
                    f"profile {profile} already has an identity ({sorted(known)[0]}) but this "
                    "vault holds none of its secrets: open the profile's own vault (see "
                    "`tclk-tui vault doctor`) or restore its master seed; nothing was created")
            vault.ensure_seed()
            identity = load_identity(vault)
        except VaultError as exc:
            journal.close()
            raise EngineError(f"the vault cannot be used: {exc}") from None
        except EngineError:
            journal.close()
            raise
        if known and identity.did not in known:
            journal.close()
            raise EngineError(
                f"this vault's identity {identity.did} is not profile {profile}'s "
                f"({sorted(known)[0]}): wrong vault or wrong profile")
        if not known:
            journal.add_identity(identity.did, label=profile)
        client = VenueClient(venue_url, identity, nonces=journal.nonces,
                             budget=make_budget(journal, venue_url, share),
                             source_address=source_address)
        all_rails: dict[str, SettlementRail] = {
            "paper": PaperRail(client.notes(), clock=clock_ms),
            "memory": MemoryRail(clock=clock_ms),
        }
        all_rails.update(rails or {})
        owned: list[SettlementRail] = []
        try:
            evm = load_evm_settings(profile_dir) if "evm-htlc" not in all_rails else None
        except EngineError:
            journal.close()
            await client.aclose()
            raise
        if evm is not None:
            all_rails["evm-htlc"] = open_evm_rail(vault, profile_dir, evm, clock_ms)
            owned.append(all_rails["evm-htlc"])
        refused = {rail_id: one_shot_refusal(rail_id) for rail_id, rail in all_rails.items()
                   if one_shot and rail.process_local}
        wallet = cls(profile=profile, venue_url=venue_url, vault=vault, journal=journal,
                     identity=identity, client=client, clock_ms=clock_ms,
                     rails={k: v for k, v in all_rails.items() if k not in refused},
                     refused_rails=refused)
        wallet._owned_rails = owned
        wallet.first_run = not had_seed
        wallet.alerts.policy = load_policy(profile_dir)
        if wallet.alerts.policy.problem:
            wallet.events.publish(Notice("warning", wallet.alerts.policy.problem))
        try:
            wallet._restore()
            if offline:
                wallet.rooms.set_status("offline", "not contacted: this call needs no venue")
                wallet.rooms.first_read.set()
                return wallet
            if read_venue:
                await wallet._read_venue()
        except BaseException:
            await wallet.close()  # never leave the journal or the HTTP client open
            raise
        return wallet

    async def _read_venue(self) -> None:
        """Read the venue once: the rails' word on live locks, the board and every live deal
        room, the outbox reconciled, our statements and DID note current."""
        await self.rail_watch.reconcile()
        try:
            problem = await adopt_venue_limits(self.client)
            if problem is not None:
                self.events.publish(Notice("warning", problem))
            await self.sync()
            for note in await self.outbox.recover():
                self.events.publish(Notice("info", note))
            await self.offers.publish_missing_statements()
            await private_deals.send_pending(self)
            await self.advertise()  # the DID note, its rails and e2e: record current
        except (VenueError, EngineError) as exc:
            self.rooms.set_status("offline", str(exc))
        finally:
            self.rooms.first_read.set()

    async def _read_then_follow(self) -> None:
        try:
            await self._read_venue()
        except Exception as exc:  # say why; the followers still read on from the cursor
            self.events.publish(Notice("error", f"reading the venue failed: {exc}"))
        self.start_following()

    def _restore(self) -> None:
        """Rebuild deals from the journal: plans, records, and the folds they give."""
        restored = self.book.restore()
        private_deals.restore(self)
        self.rooms.replay_journal(restored)
        private_deals.restore_legacy(self)

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

    def offer_of_contract(self, contract: str) -> dict | None:
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


def take_profile_lock(profile_dir: Path) -> ProfileLock:
    try:
        return ProfileLock.acquire(profile_dir)
    except ProfileLocked as exc:
        raise ProfileBusy(str(exc), exc.pid) from None


__all__ = ["IDENTITY_ENTRY", "EngineError", "ProfileBusy", "Wallet"]
