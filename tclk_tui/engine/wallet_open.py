"""Opening a wallet: the profile's lock, journal, vault identity, venue client and rails, then
the journal replayed and the venue's first read.

This is the sequence that runs once per opening, in an order that matters (the profile lock
before the journal, the identity checked against the journal before anything is created, the
journal replayed before the venue is read, every part closed again when a step fails). It
lives apart from `Wallet`, which is what an open wallet does, so the class reads as its public
operations and this module as the one story of how it comes to be.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from tclk_tui.engine.errors import EngineError, ProfileBusy
from tclk_tui.engine.events import Notice
from tclk_tui.engine.evm import load_evm_settings, open_evm_rail
from tclk_tui.engine.paths import make_private_dir
from tclk_tui.engine.secrets.identity_key import IDENTITY_ENTRY, load_identity
from tclk_tui.engine.sync import private_deals
from tclk_tui.engine.sync.venue_budget import adopt_venue_limits, make_budget, share_from_env
from tclk_tui.engine.watch_policy import load_policy
from tclk_tui.rails.base import SettlementRail
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rails.paper import PaperRail
from tclk_tui.store.journal import Journal
from tclk_tui.store.profile_lock import ProfileLock, ProfileLocked
from tclk_tui.technocore.budget import DEFAULT_SHARE
from tclk_tui.technocore.client import VenueClient
from tclk_tui.technocore.errors import VenueError
from tclk_tui.vault.errors import VaultError
from tclk_tui.vault.seed import Vault

if TYPE_CHECKING:
    from tclk_tui.engine.wallet import Wallet

__all__ = ["first_read", "one_shot_refusal", "open_wallet", "read_then_follow", "restore",
           "take_profile_lock", "wall_clock_ms"]


def wall_clock_ms() -> int:
    return int(time.time() * 1000)


def one_shot_refusal(rail_id: str) -> str:
    """Why a process-local rail cannot be chosen by a wallet that lives for one call."""
    return (f"the {rail_id} rail keeps its locks inside one process, and a CLI call without a "
            "daemon is a process that ends with the call: a lock made here could never be "
            "claimed, refunded or verified by a later call. Use paper to rehearse, or start "
            f"`tclk-tui daemon` (or the app): the CLI then goes through it, where {rail_id} "
            "lasts as long as the engine")


def take_profile_lock(profile_dir: Path) -> ProfileLock:
    try:
        return ProfileLock.acquire(profile_dir)
    except ProfileLocked as exc:
        raise ProfileBusy(str(exc), exc.pid) from None


async def open_wallet(cls: type[Wallet], profile: str, *, venue_url: str, data_dir: Path,
                      vault: Vault, clock_ms: Callable[[], int] = wall_clock_ms,
                      rails: Mapping[str, SettlementRail] | None = None,
                      follow: bool = True, offline: bool = False,
                      one_shot: bool = False, background: bool = False,
                      venue_share: int | None = None,
                      source_address: str | None = None) -> Wallet:
    """Open the profile (taking its lock) and, unless `offline`, read the venue once.

    `venue_share` is how many wallets share this host's address at the venue (default:
    `TCLK_VENUE_SHARE`, else 2; see engine.sync.venue_budget), `source_address` the local
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
        wallet = await _open_locked(cls, profile, profile_dir, venue_url=venue_url,
                                        vault=vault, clock_ms=clock_ms, rails=rails,
                                        offline=offline, one_shot=one_shot,
                                        read_venue=not (background and follow),
                                        share=share, source_address=source_address)
    except BaseException:
        lock.release()
        raise
    wallet.owns(lock=lock)
    if follow and background and not offline:
        wallet.background.spawn(read_then_follow(wallet))
    elif follow:
        wallet.start_following()
    return wallet


async def _open_locked(cls: type[Wallet], profile: str, profile_dir: Path, *, venue_url: str,
                       vault: Vault, clock_ms: Callable[[], int],
                       rails: Mapping[str, SettlementRail] | None,
                       offline: bool = False, one_shot: bool = False,
                       read_venue: bool = True, share: int = DEFAULT_SHARE,
                       source_address: str | None = None) -> Wallet:
    journal = Journal(profile_dir / "journal.sqlite3", clock=clock_ms)
    known = {row.did for row in journal.identities.all()}
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
        journal.identities.add(identity.did, label=profile)
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
    wallet.owns(rails=owned)
    wallet.fee_waits.one_shot = one_shot
    wallet.first_run = not had_seed
    wallet.alerts.policy = load_policy(profile_dir)
    if wallet.alerts.policy.problem:
        wallet.events.publish(Notice("warning", wallet.alerts.policy.problem))
    try:
        restore(wallet)
        if offline:
            wallet.rooms.set_status("offline", "not contacted: this call needs no venue")
            wallet.rooms.first_read.set()
            return wallet
        if read_venue:
            await first_read(wallet)
    except BaseException:
        await wallet.close()  # never leave the journal or the HTTP client open
        raise
    return wallet


async def first_read(wallet: Wallet) -> None:
    """Read the venue once: the rails' word on live locks, the board and every live deal
    room, the outbox reconciled, our statements and DID note current."""
    await wallet.rail_watch.reconcile()
    try:
        problem = await adopt_venue_limits(wallet.client)
        if problem is not None:
            wallet.events.publish(Notice("warning", problem))
        await wallet.sync()
        for note in await wallet.outbox.recover():
            wallet.events.publish(Notice("info", note))
        await wallet.offers.publish_missing_statements()
        await private_deals.send_pending(wallet)
        await wallet.advertise()  # the DID note, its rails and e2e: record current
    except (VenueError, EngineError) as exc:
        wallet.rooms.set_status("offline", str(exc))
    finally:
        wallet.rooms.first_read.set()


async def read_then_follow(wallet: Wallet) -> None:
    try:
        await first_read(wallet)
    except Exception as exc:  # say why; the followers still read on from the cursor
        wallet.events.publish(Notice("error", f"reading the venue failed: {exc}"))
    wallet.start_following()


def restore(wallet: Wallet) -> None:
    """Rebuild deals from the journal: plans, records, and the folds they give."""
    restored = wallet.book.restore()
    private_deals.restore(wallet)
    wallet.rooms.replay_journal(restored)
    private_deals.restore_legacy(wallet)
