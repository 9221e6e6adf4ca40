"""Whether an offer may be accepted now is one dry-run: the accept this wallet would post,
judged by the protocol's state machine (as every deal action is), in the operator's words.

The property pins it to the rules the engine kept by hand beside the machine before (`old`
below, verbatim): the same offers are refused, with the same reasons, in the same precedence.
The table then drives real wallets through every refusal an accept can meet."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.engine.board.accept_legal import may_accept
from tclk_tui.engine.errors import EngineError
from tclk_tui.protocol.builders import make_offer
from tclk_tui.protocol.naming import OFFER_ROOM
from tests.engine.helpers import Pair, draft, post_as

OFFERER = "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"
OTHER = "did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT"
G = "0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
T0 = 1_760_000_000_000
EXPIRES = T0 + 600_000
STATUSES = ("open", "awaiting", "accepted", "cancelled", "expired")


def old(*, mine: bool, took_part: bool, status: str, now: int, expires: int) -> str | None:
    """The accept's protocol checks as `OfferDesk.accept` wrote them out by hand."""
    if mine:
        return "this is your own offer"
    if took_part:
        return "you already took part in this offer"
    if status not in ("open", "awaiting") or now >= expires:
        return f"the offer is {status if status != 'open' else 'expired'}"
    return None


def offer(role: str, lock: str) -> dict:
    return dict(make_offer(
        from_=OFFERER, role=role, amount="250000", asset="FLOP", lock=lock,
        rails=["memory"], claim_by_ms=T0 + 3_600_000, refund_after_ms=T0 + 7_200_000,
        expires_ms=EXPIRES, nonce="00c0ffee00c0ffee", payment_key=G if lock == "point" else None))


@settings(max_examples=400, deadline=None)
@given(role=st.sampled_from(["payer", "payee"]), lock=st.sampled_from(["hash", "point"]),
       mine=st.booleans(), took_part=st.booleans(), status=st.sampled_from(STATUSES),
       now=st.sampled_from([T0, EXPIRES - 1, EXPIRES, EXPIRES + 1, T0 + 10**9]))
def test_the_dry_run_refuses_what_the_hand_written_rules_refused(
        role: str, lock: str, mine: bool, took_part: bool, status: str, now: int) -> None:
    # "expired" with `now` before expiresMs: the venue stamped the offer past it (the board's
    # word stands, whatever this computer's clock says).
    legal = may_accept(offer(role, lock), status, did=OFFERER if mine else OTHER, now_ms=now,
                       took_part=took_part)
    expected = old(mine=mine, took_part=took_part, status=status, now=now, expires=EXPIRES)
    if expected == "the offer is awaiting" and now >= EXPIRES:
        # The one wording the dry-run changes: an offer still awaiting its statement when the
        # clock passed expiresMs (before the board's tick marked it) is expired, and says so.
        expected = "the offer is expired"
    assert legal.ok is (expected is None)
    assert legal.reason == expected


@pytest.mark.parametrize("status", ["accepted", "cancelled", "expired"])
def test_an_offer_the_board_moved_on_is_refused_in_the_boards_words(status: str) -> None:
    legal = may_accept(offer("payer", "hash"), status, did=OTHER, now_ms=T0)
    assert legal == (False, f"the offer is {status}")


async def refusal(pair: Pair, wallet, offer_id: str, rail: str | None = None) -> str:
    with pytest.raises(EngineError) as caught:
        await wallet.accept_offer(offer_id, rail=rail)
    return str(caught.value)


async def test_every_refusal_an_accept_meets_on_real_wallets(pair: Pair) -> None:
    alice, bob = pair.alice, pair.bob
    carol = await pair.open("carol")
    taken = (await bob.post_offer(draft(rails="memory"))).deal_id
    withdrawn = (await bob.post_offer(draft(rails="memory"))).deal_id
    short = (await bob.post_offer(draft(rails="memory", claim_in_s="90",
                                        expires_in_s="60"))).deal_id
    lapsing = (await bob.post_offer(draft(rails="memory"))).deal_id
    unstated = {"role": "payee", "amount": "5", "asset": "FLOP", "lock": "hash",
                "rails": ["memory"], "claim_by_ms": pair.clock.ms + 3_600_000,
                "refund_after_ms": pair.clock.ms + 7_200_000,
                "expires_ms": pair.clock.ms + 600_000, "nonce": "00c0ffee00c0ffe1"}
    silent = dict(make_offer(from_=carol.did, **unstated))  # a payee that never states
    await post_as(carol, OFFER_ROOM, silent)
    await bob.deal(withdrawn).confirm(bob.deal(withdrawn).request_cancel())
    await alice.sync()
    await alice.accept_offer(taken)
    for wallet in (alice, bob, carol):
        await wallet.sync()

    assert await refusal(pair, alice, "ab" * 32) == "no such offer on the board"
    assert await refusal(pair, bob, lapsing) == "this is your own offer"
    assert await refusal(pair, bob, taken) == "this is your own offer"  # before its status
    assert await refusal(pair, alice, taken) == "you already took part in this offer"
    assert await refusal(pair, carol, taken) == "the offer is accepted"
    assert await refusal(pair, alice, withdrawn) == "the offer is cancelled"
    assert await refusal(pair, alice, lapsing, rail="paper") == \
        "rail paper is not offered or not set up here"
    assert await refusal(pair, alice, silent["id"]) == \
        "the payee has not published its lock statement yet"

    pair.clock.advance(45_000)  # `short` now leaves 45 s to claim
    assert await refusal(pair, alice, short) == \
        "the deadlines leave less than a minute to claim or to refund"

    pair.clock.advance(600_000)  # past every expiresMs; the board has not ticked yet
    assert await refusal(pair, alice, lapsing) == "the offer is expired"
    alice.watch.tick()  # the once-a-second tick marks it
    assert alice.board.get(lapsing).status == "expired"
    assert await refusal(pair, alice, lapsing) == "the offer is expired"
    assert not any(deal.deal_id in (lapsing, withdrawn, short) for deal in alice.deals())

