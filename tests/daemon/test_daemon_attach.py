"""The app attached to a real daemon: the same screens, a whole deal, and no secret anywhere."""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Button

from tclk_tui.daemon.remote import RemoteDoor
from tclk_tui.engine.views import OfferDraft
from tclk_tui.engine.wallet import IDENTITY_ENTRY, Wallet
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.naming import deal_room
from tclk_tui.tui.accept_screen import AcceptScreen
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.gate_screen import GateScreen
from tclk_tui.tui.offer_table import OfferTable
from tests.daemon.conftest import make_vault
from tests.daemon.relay import Relay

SIZE = (120, 40)
TIMEOUT_S = 30.0


async def settle(pilot: Pilot, predicate: Callable[[], object], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT_S
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause()
        await asyncio.sleep(0.02)


async def open_counterparty(venue_url: str, home: Path) -> Wallet:
    return await Wallet.open("bob", venue_url=venue_url, data_dir=home / "bob-home",
                             vault=make_vault(home / "bob-home", "bob"), follow=True)


def payer_draft(**changes: str) -> OfferDraft:
    fields = {"role": "payer", "amount": "7000", "asset": "FLOP", "lock": "hash",
              "rails": "paper", "claim_in_s": "3600", "refund_gap_s": "3600",
              "expires_in_s": "600"}
    fields.update(changes)
    return OfferDraft(**fields)


def secrets_of(home: Path, profile: str, revealed: list[str]) -> list[str]:
    """Every secret of the profile, as the hex a leak would show (vault file opened read-only
    by its passphrase: the profile lock guards the engine, not the vault file)."""
    vault = make_vault(home, profile)
    values = [vault.master_seed().hex(), bytes(vault.backend.get(IDENTITY_ENTRY)).hex()]
    values += [s.removeprefix("0x") for s in revealed]
    return [v.lower() for v in values]


def leaks(blob: bytes, secrets: list[str]) -> list[str]:
    text = blob.decode("latin-1").lower()
    return [s[:8] + "…" for s in secrets if s in text]


def journal_bytes(profile_dir: Path) -> bytes:
    blob = b""
    for path in sorted(profile_dir.glob("journal.sqlite3*")):
        blob += path.read_bytes()
    with sqlite3.connect(f"file:{profile_dir / 'journal.sqlite3'}?mode=ro", uri=True) as db:
        blob += "\n".join(db.iterdump()).encode()
    return blob


async def test_the_attached_app_accepts_and_reveals_and_no_secret_leaks(daemon, venue):
    bob = await open_counterparty(venue.url, daemon.home)
    relay_dir = Path(tempfile.mkdtemp(prefix="tclk-relay-"))
    relay = Relay(relay_dir / "r.sock", daemon.socket)
    remote = RemoteDoor.attach(daemon.profile_dir)
    assert remote is not None
    remote.socket = relay.listen  # every byte between the app and the daemon is recorded
    remote._client.close()
    remote._client = None
    try:
        offer = await bob.post_offer(payer_draft())
        remote.start()
        app = TclkApp(remote)
        async with app.run_test(size=SIZE) as pilot:
            table = app.query_one(OfferTable)
            await settle(pilot, lambda: any(table.row_at(i).offer_id == offer.deal_id
                                            for i in range(table.row_count)), "bob's offer")
            table.move_to(offer.deal_id)
            table.focus()
            await pilot.press("a")
            await settle(pilot, lambda: isinstance(app.screen, AcceptScreen), "accept form")
            await pilot.click("#accept-ok")
            await settle(pilot, lambda: app.active_pane == "deals", "the deal room")
            await settle(pilot, lambda: app.deal_room.view is not None
                         and app.deal_room.view.status == "accepted", "accepted")

            await settle(pilot, lambda: bob.deal(offer.deal_id).state.status == "accepted",
                         "bob sees the accept")
            deal = bob.deal(offer.deal_id)
            await deal.confirm(deal.request_lock("paper"))
            await settle(pilot, lambda: "reveal" in app.deal_room.view.actions,
                         "a verified lock in the attached app")
            app.deal_room.query_one("#transcript").focus()
            await pilot.press("r")
            await settle(pilot, lambda: isinstance(app.screen, GateScreen), "the reveal gate")
            gate = app.screen
            await pilot.press(*app.deal_room.view.contract[2:6])
            await settle(pilot, lambda: not gate.query_one("#gate-confirm", Button).disabled,
                         "confirm enabled")
            await pilot.press("enter")
            await settle(pilot, lambda: app.deal_room.view.status == "claimed", "claimed")
            contract = app.deal_room.view.contract
        await settle(pilot, lambda: bob.deal(offer.deal_id).state.status == "claimed",
                     "bob sees the claim")
    finally:
        await remote.close()
        relay.close()
        await bob.close()
    room = await _room_lines(venue.url, daemon.home, contract)
    revealed = [f["secret"] for f in map(try_decode_frame, room) if f and f["type"] == "reveal"]
    assert revealed, "the reveal is on the venue"
    secrets = secrets_of(daemon.home, "alice", revealed)
    assert leaks("\n".join(room).encode(), secrets)  # the grep finds a secret where one is
    await daemon.stop()
    log = (daemon.profile_dir / "tclk-tui.log").read_bytes()
    assert b"posted outbox" in log and b"is claimed" in log  # the log says what happened
    assert leaks(log, secrets) == []
    assert leaks(journal_bytes(daemon.profile_dir), secrets) == []
    assert b'"method":"door.run"' in relay.traffic and b"claimed" in bytes(relay.traffic)
    assert leaks(bytes(relay.traffic), secrets) == []


async def _room_lines(venue_url: str, home: Path, contract: str) -> list[str]:
    reader = await Wallet.open("carol", venue_url=venue_url, data_dir=home / "carol-home",
                               vault=make_vault(home / "carol-home", "carol"), follow=False)
    try:
        export = await reader.client.export(deal_room(contract))
        return [r.text for r in export.verified]
    finally:
        await reader.close()
