"""After complete deals no secret is in SQLite: not the journal file, not its write-ahead log."""

from __future__ import annotations

from pathlib import Path

import pytest

from tclk_tui.engine.wallet import IDENTITY_ENTRY, Wallet
from tests.engine.helpers import (
    Pair,
    assert_settled,
    draft,
    lock_as_payer,
    payer_offer_accepted,
    reveal_as_payee,
)


def _db_bytes(wallet: Wallet) -> bytes:
    path = Path(wallet.journal.path)
    return b"".join(p.read_bytes() for p in (path, path.with_name(path.name + "-wal"))
                    if p.exists())


def _spellings(value: str | bytes) -> list[bytes]:
    raw = value if isinstance(value, bytes) else bytes.fromhex(value.removeprefix("0x"))
    text = raw.hex()
    return [raw, text.encode(), text.upper().encode()]


def _secrets_of(pair: Pair, offer_ids: list[str]) -> dict[str, str | bytes]:
    found: dict[str, str | bytes] = {}
    for wallet in (pair.alice, pair.bob):
        found[f"{wallet.profile} master seed"] = wallet.vault.master_seed().reveal()
        found[f"{wallet.profile} identity key"] = bytes(wallet.vault.backend.get(IDENTITY_ENTRY))
        for offer_id in offer_ids:
            secret = wallet.keeper.deal_secret(offer_id)
            if secret is not None:
                found[f"{wallet.profile} secret of {offer_id[:10]}"] = secret
            if offer_id in wallet.keeper._key_plans:
                found[f"{wallet.profile} payment key of {offer_id[:10]}"] = \
                    wallet.keeper.payment_secret_key(offer_id)
    return found


def _assert_clean(pair: Pair, secrets: dict[str, str | bytes]) -> None:
    for wallet in (pair.alice, pair.bob):
        data = _db_bytes(wallet)
        assert len(data) > 4096
        for name, value in secrets.items():
            for spelling in _spellings(value):
                assert spelling not in data, f"{name} found in {wallet.profile}'s journal"


@pytest.mark.parametrize("rail", ["memory", "paper"])
async def test_no_secret_in_sqlite_after_complete_deals(pair: Pair, rail: str):
    offer_ids = []
    for lock in ("hash", "point"):
        offer_id, deal_a, deal_b = await payer_offer_accepted(pair, lock=lock, rails=rail)
        await lock_as_payer(pair, deal_a, rail)
        await reveal_as_payee(pair, deal_b)
        await assert_settled(pair, offer_id, "claimed")
        offer_ids.append(offer_id)
    # A payee-role offer: the payee is the offerer, so its secret plan is made at offer time.
    view = await pair.bob.post_offer(draft(role="payee", lock="point", rails=rail))
    await pair.alice.sync()
    await pair.alice.accept_offer(view.deal_id)
    await pair.bob.sync()
    await lock_as_payer(pair, pair.alice.deal(view.deal_id), rail)
    await reveal_as_payee(pair, pair.bob.deal(view.deal_id))
    await assert_settled(pair, view.deal_id, "claimed")
    offer_ids.append(view.deal_id)

    secrets = _secrets_of(pair, offer_ids)
    assert sum("secret of" in k for k in secrets) == 3
    assert sum("payment key" in k for k in secrets) == 4
    _assert_clean(pair, secrets)
    # ...and after a restart (the journal is read back and checkpointed on close).
    await pair.reopen("alice")
    await pair.reopen("bob")
    for offer_id in offer_ids:
        await assert_settled(pair, offer_id, "claimed")
    _assert_clean(pair, secrets)


async def test_a_refused_reveal_never_carries_the_secret_into_errors_or_sqlite(pair: Pair):
    from tclk_tui.engine.errors import EngineError
    from tclk_tui.engine.gates import GateRefused

    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a)
    request = deal_b.request_reveal()
    assert request.allowed, request.blockers
    secret = pair.bob.keeper.deal_secret(offer_id)
    # The venue refuses the write and quotes the signed string back on its first line (a real
    # 403 quotes it further down; any venue may echo what it refused).
    pair.venue.venue.faults.respond_with(
        403, f"403 signature does not cover room|1|{secret}\n",
        path_prefix=f"/r/{deal_b.room}", times=8)
    with pytest.raises((EngineError, GateRefused)) as caught:
        await deal_b.confirm(request, typed_code=request.confirm_code)
    assert secret.removeprefix("0x") not in str(caught.value)
    _assert_clean(pair, {"bob secret": secret})


async def test_a_reveal_posted_on_the_board_is_refused_there_and_journaled_without_its_secret(
        pair: Pair):
    """The board, the journal and the routing share one decode of each line: a reveal frame on
    the board is still redacted before SQLite sees it, and still refused by the board."""
    from tclk_tui.protocol.builders import make_reveal
    from tclk_tui.protocol.codec import encode_frame
    from tclk_tui.protocol.naming import OFFER_ROOM

    secret = "0x" + "5e" * 32
    line = encode_frame(make_reveal(from_=pair.bob.did, contract="0x" + "c0" * 32,
                                    ref="escrow-1", secret=secret))
    await pair.bob.client.post(OFFER_ROOM, line)
    await pair.alice.sync()
    assert pair.alice.board.rejected().get("reveal must be posted in the derived deal room") == 1
    journaled = [r.line for r in pair.alice.journal.records.of_room(OFFER_ROOM)]
    assert any('"type":"reveal"' in text for text in journaled)
    for spelling in _spellings(secret):
        assert spelling not in _db_bytes(pair.alice)
