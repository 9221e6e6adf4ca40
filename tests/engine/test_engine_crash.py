"""A wallet SIGKILLed at each step of a deal and restarted: the deal resumes, no secret is lost,
no line is posted twice, and both sides end in the right state.

The crashing wallet ("bob") runs in a child process (tests/engine/crash_driver.py) with
TCLK_CRASH_AT naming the point; the venue and the counterparty ("alice") run in this test's
event loop, which stays free while the child talks to the venue over loopback. The restart opens
bob's wallet on the same data directory (in-process, or a relaunched driver where the user
repeats the interrupted action): Wallet.open replays the journal and the outbox. Everything
settles on the paper rail, whose records live on the venue and so survive the killed process.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import Counter
from pathlib import Path

import pytest

from tclk_tui.engine.crash import CRASH_ENV, CRASH_POINTS
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.wallet import Wallet, wall_clock_ms
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.locks import verify_secret
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.rails.paper import PaperRail
from tclk_tui.rehearsal.runner import RunningVenue
from tclk_tui.store.rows import OutboxState
from tests.engine.helpers import audit, draft, file_vault, journal_fold_status, open_wallet

ROOT = Path(__file__).resolve().parents[2]
DRIVER_TIMEOUT_S = 60.0
SIGKILLED = -9
OUTBOX_POINTS = ("after-journal", "after-post", "before-confirm")


async def drive(venue: RunningVenue, data_dir: Path, step: str, *args: str,
                crash_at: str | None = None) -> tuple[int, str, str]:
    """Run one step of bob's side in a child process; the loop keeps serving the venue."""
    env = {k: v for k, v in os.environ.items() if k != CRASH_ENV}
    if crash_at is not None:
        assert crash_at in CRASH_POINTS
        env[CRASH_ENV] = crash_at
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.engine.crash_driver", venue.url, str(data_dir), "bob",
        step, *args, cwd=ROOT, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        async with asyncio.timeout(DRIVER_TIMEOUT_S):
            out, err = await proc.communicate()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def crash(venue: RunningVenue, data_dir: Path, step: str, *args: str, at: str) -> None:
    code, out, err = await drive(venue, data_dir, step, *args, crash_at=at)
    assert code == SIGKILLED, f"expected a SIGKILL at {at}, got {code}: {out}{err}"


async def rerun(venue: RunningVenue, data_dir: Path, step: str, *args: str) -> str:
    """Run the step again in a fresh process without a crash point; returns the deal status."""
    code, out, err = await drive(venue, data_dir, step, *args)
    assert code == 0, out + err
    return json.loads(out)["status"]


async def reopen(venue: RunningVenue, data_dir: Path, profile: str = "bob") -> Wallet:
    return await open_wallet(venue.url, data_dir, profile, clock=wall_clock_ms)


def vault_secrets(data_dir: Path, offer_id: str) -> dict[str, str]:
    """Bob's cached deal secrets for one offer, read straight from the vault file."""
    vault = file_vault(data_dir, "bob")
    held = {}
    for name in vault.deal_entries(offer_id):
        _, context, nonce, kind = name.split("/")
        value = vault.cached_deal_secret(context, nonce, kind)
        assert value is not None
        held[name] = "0x" + value.hex()
    return held


def journal_bytes(data_dir: Path, profile: str = "bob") -> bytes:
    return b"".join(p.read_bytes() for p in sorted((data_dir / profile).glob("journal.sqlite3*")))


async def own_frames(wallet: Wallet, room: str, did: str) -> list[dict]:
    """Every line `did` has in `room` (verified or not), each asserted to appear only once."""
    export = await wallet.client.export(room)
    lines = [r.text for r in export.records if r.sender == did]
    twice = [line for line, n in Counter(lines).items() if n > 1]
    assert not twice, f"posted more than once in {room}: {twice}"
    return [f for f in (try_decode_frame(line) for line in lines) if f is not None]


def of_type(frames: list[dict], kind: str) -> list[dict]:
    return [f for f in frames if f["type"] == kind]


def outbox_settled(wallet: Wallet) -> None:
    assert wallet.journal.outbox.unfinished() == []
    assert all(item.state == OutboxState.CONFIRMED for item in wallet.journal.outbox.items())


async def paper_status(wallet: Wallet, contract: str) -> str | None:
    rail = wallet.rails["paper"]
    assert isinstance(rail, PaperRail)
    record = await rail.read(contract)
    return None if record is None else record.status


def knows(wallet: Wallet, offer_id: str) -> bool:
    try:
        wallet.deal(offer_id)
    except EngineError:
        return False
    return True


async def lock_as(wallet: Wallet, offer_id: str) -> None:
    deal = wallet.deal(offer_id)
    request = deal.request_lock()
    assert request.allowed, request.blockers
    await deal.confirm(request)
    assert deal.state.status == "locked"


async def reveal_as(wallet: Wallet, offer_id: str) -> None:
    deal = wallet.deal(offer_id)
    request = deal.request_reveal()
    assert request.allowed, request.blockers
    await deal.confirm(request, typed_code=request.confirm_code)
    assert deal.state.status == "claimed"


async def settle_both(alice: Wallet, bob: Wallet, offer_id: str, status: str) -> None:
    """Both wallets, both journals (row and fold) and an audit of the venue agree."""
    await alice.sync()
    await bob.sync()
    contract = bob.deal(offer_id).state.contract
    assert contract is not None
    assert alice.deal(offer_id).state.status == status
    assert bob.deal(offer_id).state.status == status
    for wallet in (alice, bob):
        row = wallet.journal.deals.by_contract(contract)
        assert row is not None and row.status == status
        assert journal_fold_status(wallet, contract) == status
    assert await audit(alice, contract) == status


# -- the payee accepts a payer's offer -----------------------------------------------------------


@pytest.mark.parametrize("point", ["after-secret-derived", *OUTBOX_POINTS])
async def test_payee_killed_while_accepting_resumes_with_its_secret(
        venue: RunningVenue, tmp_path: Path, point: str) -> None:
    alice = await reopen(venue, tmp_path, "alice")
    bob = None
    try:
        offer_id = (await alice.post_offer(draft())).deal_id
        await crash(venue, tmp_path, "accept", offer_id, at=point)
        at_crash = vault_secrets(tmp_path, offer_id)
        assert len(at_crash) == 1, "the secret is in the vault before anything commits to it"

        bob = await reopen(venue, tmp_path)
        if point == "after-secret-derived":
            # Nothing was journaled or published: the deal is unknown, the offer still open,
            # and accepting again is the whole recovery.
            assert not knows(bob, offer_id)
            assert bob.board.get(offer_id).status == "open"
            await bob.accept_offer(offer_id)
        else:
            # The journaled accept is delivered (or confirmed) by the restart alone.
            assert knows(bob, offer_id)
        deal = bob.deal(offer_id)
        assert deal.state.status == "accepted"
        outbox_settled(bob)

        accepts = of_type(await own_frames(alice, OFFER_ROOM, bob.did), "accept")
        assert len(accepts) == 1
        secret = bob.keeper.deal_secret(offer_id)
        assert secret is not None
        assert verify_secret("hash", accepts[0]["statement"], secret)
        assert deal.state.statement == accepts[0]["statement"]
        held = vault_secrets(tmp_path, offer_id)
        assert at_crash.items() <= held.items(), "a secret derived before the crash was lost"
        if point != "after-secret-derived":
            assert held == at_crash and secret in at_crash.values()

        await alice.sync()
        await lock_as(alice, offer_id)
        await bob.sync()
        await reveal_as(bob, offer_id)
        await settle_both(alice, bob, offer_id, "claimed")
        assert await paper_status(alice, deal.state.contract) == "claimed"
    finally:
        await alice.close()
        if bob is not None:
            await bob.close()


# -- the payee posts its own offer (with the statement line) -------------------------------------


@pytest.mark.parametrize("point", ["after-secret-derived", *OUTBOX_POINTS])
async def test_payee_killed_while_offering_leaves_an_acceptable_offer_or_none(
        venue: RunningVenue, tmp_path: Path, point: str) -> None:
    alice = await reopen(venue, tmp_path, "alice")
    bob = None
    try:
        await crash(venue, tmp_path, "offer-payee", at=point)
        at_crash = file_vault(tmp_path, "bob").deal_entries()
        assert len(at_crash) == 1, "the secret is in the vault before anything commits to it"
        bob = await reopen(venue, tmp_path)
        outbox_settled(bob)
        await alice.sync()
        offers = of_type(await own_frames(alice, OFFER_ROOM, bob.did), "offer")
        if point == "after-secret-derived":
            assert offers == [] and bob.deals() == []
            return
        assert len(offers) == 1
        offer_id = offers[0]["id"]
        assert knows(bob, offer_id)
        secret = bob.keeper.deal_secret(offer_id)
        assert secret is not None
        assert list(vault_secrets(tmp_path, offer_id).values()) == [secret]
        assert file_vault(tmp_path, "bob").deal_entries() == at_crash
        statement = alice.board.published_statement(offer_id)
        assert statement is not None, "the restarted payee never published its lock statement"
        assert verify_secret("hash", statement, secret)

        await alice.accept_offer(offer_id)
        await lock_as(alice, offer_id)
        await bob.sync()
        await reveal_as(bob, offer_id)
        await settle_both(alice, bob, offer_id, "claimed")
    finally:
        await alice.close()
        if bob is not None:
            await bob.close()


# -- the payer locks -----------------------------------------------------------------------------


@pytest.mark.parametrize("point", ["after-rail-lock", *OUTBOX_POINTS])
async def test_payer_killed_while_locking_never_locks_or_announces_twice(
        venue: RunningVenue, tmp_path: Path, point: str) -> None:
    alice = await reopen(venue, tmp_path, "alice")
    bob = await reopen(venue, tmp_path)
    try:
        offer_id = (await alice.post_offer(draft(role="payee"))).deal_id
        await bob.sync()
        await bob.accept_offer(offer_id)
        contract = bob.deal(offer_id).state.contract
        assert contract is not None
        await bob.close()

        await crash(venue, tmp_path, "lock", offer_id, at=point)
        assert await paper_status(alice, contract) == "locked"

        if point == "after-rail-lock":
            # The rail holds the lock but the room does not know: locking again (in a relaunched
            # process) must announce the existing lock, not lock a second time.
            assert await rerun(venue, tmp_path, "lock", offer_id) == "locked"
        bob = await reopen(venue, tmp_path)
        deal = bob.deal(offer_id)
        assert deal.state.status == "locked"
        assert deal.state.rail == "paper" and deal.state.rail_ref == contract
        outbox_settled(bob)
        locks = of_type(await own_frames(alice, deal_room(contract), bob.did), "lock")
        assert len(locks) == 1

        await alice.sync()
        check = alice.deal(offer_id).lock_check
        assert check is not None and check.verified, check
        await reveal_as(alice, offer_id)
        await settle_both(alice, bob, offer_id, "claimed")
    finally:
        await alice.close()
        await bob.close()


# -- the payee claims and reveals ----------------------------------------------------------------


@pytest.mark.parametrize("point", ["after-rail-claim", *OUTBOX_POINTS])
async def test_payee_killed_while_revealing_claims_once_and_reveals_once(
        venue: RunningVenue, tmp_path: Path, point: str) -> None:
    alice = await reopen(venue, tmp_path, "alice")
    bob = await reopen(venue, tmp_path)
    try:
        offer_id = (await alice.post_offer(draft())).deal_id
        await bob.sync()
        await bob.accept_offer(offer_id)
        secret = bob.keeper.deal_secret(offer_id)
        assert secret is not None
        await bob.close()
        await alice.sync()
        await lock_as(alice, offer_id)
        contract = alice.deal(offer_id).state.contract
        assert contract is not None

        await crash(venue, tmp_path, "reveal", offer_id, at=point)
        assert await paper_status(alice, contract) == "claimed"
        # The reveal is journaled with a placeholder: the secret never reached SQLite.
        assert secret.removeprefix("0x").encode() not in journal_bytes(tmp_path)
        assert secret in vault_secrets(tmp_path, offer_id).values()

        if point == "after-rail-claim":
            # Claimed on the rail, not yet revealed in the room: revealing again (in a relaunched
            # process) must go through and announce the claim.
            assert await rerun(venue, tmp_path, "reveal", offer_id) == "claimed"
        bob = await reopen(venue, tmp_path)
        deal = bob.deal(offer_id)
        assert deal.state.status == "claimed"
        outbox_settled(bob)
        reveals = of_type(await own_frames(alice, deal_room(contract), bob.did), "reveal")
        assert len(reveals) == 1
        assert reveals[0]["secret"] == secret == bob.keeper.deal_secret(offer_id)
        await settle_both(alice, bob, offer_id, "claimed")
        assert secret.removeprefix("0x").encode() not in journal_bytes(tmp_path)
    finally:
        await alice.close()
        await bob.close()
