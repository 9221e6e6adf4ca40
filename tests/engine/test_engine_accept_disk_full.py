"""A full disk during accept (the vault's write of the secret, the nonce's, the confirmation's)
is a typed error that says whether the accept reached the venue, and nothing is lost: once
there is room again the deal goes on, from a restart if need be."""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Callable

import pytest

from tclk_tui.engine.commands import CommandError, execute
from tclk_tui.engine.errors import JournalUnwritable
from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.naming import OFFER_ROOM
from tests.engine.helpers import Pair, draft, lock_as_payer, reveal_as_payee

WRITES = (sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE)


def _journal_refuses(wallet: Wallet, table: str) -> Callable[[], None]:
    """Every write to one journal table fails from now on, as a full disk fails it."""
    db = wallet.journal._live()

    def authorize(action, arg1, *_rest):
        return sqlite3.SQLITE_DENY if action in WRITES and arg1 == table else sqlite3.SQLITE_OK

    db.set_authorizer(authorize)
    return lambda: db.set_authorizer(None)


def _vault_refuses(wallet: Wallet) -> Callable[[], None]:
    """The file vault's next write meets a full disk (ENOSPC from the OS)."""
    backend = wallet.vault.backend

    def full(image: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    backend._write_atomically = full  # type: ignore[attr-defined]
    return lambda: vars(backend).pop("_write_atomically")


BREAKS = {"vault": _vault_refuses,
          "nonce": lambda w: _journal_refuses(w, "nonce_counters"),
          "confirm": lambda w: _journal_refuses(w, "records")}


async def _accepts_on_board(pair: Pair, who: Wallet) -> int:
    export = await pair.alice.client.export(OFFER_ROOM)
    return sum((try_decode_frame(r.text) or {}).get("type") == "accept" and r.sender == who.did
               for r in export.records)


@pytest.mark.parametrize("where", list(BREAKS))
async def test_a_full_disk_during_a_public_accept(pair: Pair, where: str):
    alice = pair.alice
    offer_id = (await alice.post_offer(draft(rails="memory"))).deal_id
    await pair.bob.sync()
    undo = BREAKS[where](pair.bob)
    with pytest.raises(CommandError) as caught:
        await execute(pair.bob, "accept", {"offer": offer_id})
    reached = where == "confirm"
    assert caught.value.data.get("happened") is reached, caught.value
    text = str(caught.value)
    assert ("reached the venue" in text) == reached, text
    assert ("did not reach the venue" in text) == (not reached), text
    assert await _accepts_on_board(pair, pair.bob) == int(reached)
    undo()
    bob = await pair.reopen("bob")
    if not reached:
        await bob.accept_offer(offer_id)
    await alice.sync()
    assert alice.deal(offer_id).state.payee_did == bob.did
    assert bob.deal(offer_id).state.status == "accepted"
    assert await _accepts_on_board(pair, bob) == 1  # said once, never twice
    await lock_as_payer(pair, alice.deal(offer_id), "memory")
    await reveal_as_payee(pair, bob.deal(offer_id))  # the secret was kept: it claims


def _deal_rows_refuse_updates(wallet: Wallet) -> Callable[[], None]:
    """The deal's row was written when the accept was journaled; its next write, once the
    letter is out (the accept that binds the deal), meets a full disk."""
    db = wallet.journal._live()

    def authorize(action, arg1, *_rest):
        refused = action == sqlite3.SQLITE_UPDATE and arg1 == "deals"
        return sqlite3.SQLITE_DENY if refused else sqlite3.SQLITE_OK

    db.set_authorizer(authorize)
    return lambda: db.set_authorizer(None)


PRIVATE_BREAKS = {"vault": _vault_refuses,
                  "seal": lambda w: _journal_refuses(w, "records"),
                  "bind": _deal_rows_refuse_updates}


@pytest.mark.parametrize("where", list(PRIVATE_BREAKS))
async def test_a_full_disk_during_a_private_accept(pair: Pair, where: str):
    """"seal": the sealed channel is out, the letter is not; "bind": the letter is out."""
    alice = pair.alice
    offer_id = (await alice.post_offer(draft(rails="memory"))).deal_id
    await pair.bob.sync()
    undo = PRIVATE_BREAKS[where](pair.bob)
    with pytest.raises(JournalUnwritable) as caught:
        await pair.bob.accept_offer(offer_id, private=True)
    reached = where == "bind"
    assert caught.value.happened is reached
    text = str(caught.value)
    assert ("reached the venue" in text) == reached, text
    assert ("did not reach the venue" in text) == (not reached), text
    undo()
    bob = await pair.reopen("bob")  # a signed accept kept in the journal is sent again
    if where == "vault":
        await bob.accept_offer(offer_id, private=True)
    await alice.check_mail()
    deal_a = alice.deal(offer_id)
    assert deal_a.state.payee_did == bob.did
    assert bob.deal(offer_id).state.contract == deal_a.state.contract
    await lock_as_payer(pair, deal_a, "memory")
    await reveal_as_payee(pair, bob.deal(offer_id))
