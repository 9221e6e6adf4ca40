"""Real wallets on a real rehearsal venue: file vaults (cheap KDF), SQLite journals, loopback."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.sync import private_deals
from tclk_tui.engine.views import DealView, OfferDraft
from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.panel import panel_of
from tclk_tui.protocol.transcript import (
    TranscriptRecord,
    find_contract_handshake,
    fold_transcript,
)
from tclk_tui.rails.base import SettlementRail
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.runner import RunningVenue
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault


class Clock:
    """A hand-moved clock in Unix ms, shared by wallets, rails and the venue when needed."""

    def __init__(self, start_ms: int) -> None:
        self.ms = start_ms

    def __call__(self) -> int:
        return self.ms

    def seconds(self) -> float:
        """The same instant in epoch seconds (the rehearsal venue's clock unit)."""
        return self.ms / 1000

    def advance(self, ms: int) -> None:
        self.ms += ms


def file_vault(path: Path, profile: str) -> Vault:
    backend = FileVaultBackend(path / f"{profile}.vault", passphrase=lambda: "correct horse",
                               kdf=KdfParams.minimum())
    return Vault(backend, profile=profile)


async def open_wallet(venue_url: str, data_dir: Path, profile: str, *,
                      clock: Callable[[], int], rails: dict[str, SettlementRail] | None = None,
                      follow: bool = False) -> Wallet:
    return await Wallet.open(profile, venue_url=venue_url, data_dir=data_dir,
                             vault=file_vault(data_dir, profile), clock_ms=clock, rails=rails,
                             follow=follow)


def draft(**overrides: str) -> OfferDraft:
    fields = {"role": "payer", "amount": "250000", "asset": "FLOP", "lock": "hash",
              "rails": "paper", "claim_in_s": "3600", "refund_gap_s": "3600",
              "expires_in_s": "600"}
    fields.update(overrides)
    return OfferDraft(**fields)


async def until(predicate: Callable[[], bool], *, timeout_s: float = 5.0,
                step: Callable[[], object] | None = None) -> None:
    """Poll a condition (optionally running an async step each round) within a bound."""
    async with asyncio.timeout(timeout_s):
        while not predicate():
            if step is not None:
                result = step()
                if asyncio.iscoroutine(result):
                    await result
            await asyncio.sleep(0.01)


@dataclass
class Pair:
    """Two profiles (alice, bob) on one venue, sharing a clock and an in-process memory rail.

    The venue's clock is the same hand-moved clock, so record timestamps (which the fold judges
    deadlines by) and the wallets' gates agree on what time it is.
    """

    venue: RunningVenue
    data_dir: Path
    clock: Clock
    memory: MemoryRail
    alice: Wallet
    bob: Wallet
    extra: list[Wallet] = field(default_factory=list)

    @property
    def rails(self) -> dict[str, SettlementRail]:
        return {"memory": self.memory}

    async def open(self, profile: str) -> Wallet:
        wallet = await open_wallet(self.venue.url, self.data_dir, profile, clock=self.clock,
                                   rails=self.rails)
        self.extra.append(wallet)
        return wallet

    async def stranger(self, profile: str) -> Wallet:
        """A stranger's wallet: its client keeps no share of the venue's budgets, since an
        attacker writes from as many addresses as it likes and at the venue's own pace."""
        wallet = await self.open(profile)
        wallet.client.budget = None
        return wallet

    async def reopen(self, name: str) -> Wallet:
        """Close the named wallet and open its profile again on the same data dir."""
        old: Wallet = getattr(self, name)
        await old.close()
        fresh = await open_wallet(self.venue.url, self.data_dir, old.profile, clock=self.clock,
                                  rails=self.rails)
        setattr(self, name, fresh)
        return fresh

    async def sync(self) -> None:
        await self.alice.sync()
        await self.bob.sync()

    async def close(self) -> None:
        for wallet in (self.alice, self.bob, *self.extra):
            await wallet.close()


async def audit(wallet: Wallet, contract: str) -> str:
    """The offline auditor's answer: handshake from the board export, fold with the room export."""
    board = (await wallet.client.export(OFFER_ROOM)).transcript
    room = (await wallet.client.export(deal_room(contract))).transcript
    handshake = find_contract_handshake(board, contract)
    assert handshake is not None, "no authenticated handshake on the board"
    fold = fold_transcript([handshake.offer, handshake.accept, *room])
    assert fold.state is not None
    return fold.state.status


def journal_fold_status(wallet: Wallet, contract: str) -> str:
    """The fold of what the wallet's own journal holds (evidence that outlives the venue)."""
    def rows(room: str) -> list[TranscriptRecord]:
        return wallet.evidence.records(room)

    handshake = find_contract_handshake(rows(OFFER_ROOM), contract)
    assert handshake is not None, f"{wallet.profile}'s journal holds no handshake"
    fold = fold_transcript([handshake.offer, handshake.accept, *rows(deal_room(contract))])
    assert fold.state is not None
    return fold.state.status


async def assert_settled(pair: Pair, offer_id: str, status: str) -> None:
    """Both wallets, both journals and an offline audit of the venue agree on `status`."""
    await pair.sync()
    deal_a, deal_b = pair.alice.deal(offer_id), pair.bob.deal(offer_id)
    assert deal_a.state.status == status, deal_a.view().records
    assert deal_b.state.status == status, deal_b.view().records
    contract = deal_a.state.contract
    assert contract is not None and deal_b.state.contract == contract
    for wallet in (pair.alice, pair.bob):
        row = wallet.journal.deals.by_contract(contract)
        assert row is not None and row.status == status, (wallet.profile, row)
        assert journal_fold_status(wallet, contract) == status
        assert await audit(wallet, contract) == status


async def assert_cancelled_on_board(pair: Pair, offer_id: str) -> None:
    """A proposed offer's cancel lives on the board: both journals, both folds, the audit."""
    await pair.sync()
    for wallet in (pair.alice, pair.bob):
        rows = wallet.evidence.records(OFFER_ROOM)
        mine = [r for r in rows if offer_id in r.line]
        assert fold_transcript(mine).state.status == "cancelled"
    board = (await pair.alice.client.export(OFFER_ROOM)).transcript
    assert fold_transcript([r for r in board if offer_id in r.line]).state.status == "cancelled"


async def post_as(wallet: Wallet, room: str, frame: dict) -> None:
    """Sign and post a hand-built frame with the wallet's real identity (no engine checks)."""
    await wallet.client.post(room, encode_frame(frame))


async def payer_offer_accepted(pair: Pair, **overrides: str) -> tuple[str, DealSession,
                                                                        DealSession]:
    """Alice offers to pay, Bob accepts as payee, both see `accepted`."""
    view: DealView = await pair.alice.post_offer(draft(**overrides))
    await pair.bob.sync()
    await pair.bob.accept_offer(view.deal_id)
    await pair.alice.sync()
    deal_a, deal_b = pair.alice.deal(view.deal_id), pair.bob.deal(view.deal_id)
    assert deal_a.state.status == deal_b.state.status == "accepted"
    return view.deal_id, deal_a, deal_b


async def lock_as_payer(pair: Pair, deal: DealSession, rail: str | None = None) -> None:
    request = deal.request_lock(rail)
    assert request.allowed, request.blockers
    await deal.confirm(request)
    assert deal.state.status == "locked"
    await pair.sync()


async def reveal_as_payee(pair: Pair, deal: DealSession) -> None:
    request = deal.request_reveal()
    assert request.allowed, request.blockers
    await deal.confirm(request, typed_code=request.confirm_code)
    assert deal.state.status == "claimed"
    await pair.sync()


async def arbitrated_deal(pair: Pair, referees: list, lock: str = "hash", rail: str = "memory"):
    """Alice pays, Bob works; the offer names the referees; they mint; Bob accepts; Alice
    locks after checking the statement's provenance."""
    alice, bob = pair.alice, pair.bob
    offer = await alice.post_offer(draft(rails=rail, lock=lock,
                                         panel=",".join(r.did for r in referees)))
    offer_id = offer.deal_id
    frame = alice.board.offer_frame(offer_id) or alice.deal(offer_id).offer
    assert panel_of(frame).members == tuple(r.did for r in referees)
    await bob.sync()
    with pytest.raises(EngineError, match="not published its statement"):
        await bob.accept_offer(offer_id)
    for referee in referees:
        desk = referee.referee
        await desk.refresh()
        if desk.case(offer_id).note:  # a hash-lock committee: only the dealer mints
            await desk.mint(offer_id)
    for referee in referees:  # dealt shares arrive sealed
        await private_deals.poll_letters(referee)
    await bob.sync()
    await bob.accept_offer(offer_id)
    await alice.sync()
    deal_a = alice.deal(offer_id)
    assert deal_a.state.status == "accepted"
    await lock_as_payer(pair, deal_a, rail)
    return offer_id, deal_a, bob.deal(offer_id)
