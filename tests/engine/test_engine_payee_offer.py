"""A payee-role offer: the payee offers, publishes its statement beside it, the payer accepts."""

from __future__ import annotations

import pytest

from tclk_tui.protocol.locks import verify_secret
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.protocol.side_lines import parse_statement, try_parse_statement
from tests.engine.helpers import Pair, assert_settled, draft, lock_as_payer, reveal_as_payee


@pytest.mark.parametrize("lock", ["hash", "point"])
async def test_payee_offer_is_accepted_locked_and_claimed(pair: Pair, lock: str):
    alice, bob = pair.alice, pair.bob
    view = await bob.post_offer(draft(role="payee", lock=lock, rails="memory,paper"))
    offer_id = view.deal_id
    assert view.role == "payee" and view.secret_held

    # The statement line is signed by the offerer and names its offer.
    board = (await alice.client.export(OFFER_ROOM)).verified
    lines = [r for r in board if try_parse_statement(r.text)]
    assert len(lines) == 1 and lines[0].sender == bob.did
    line = parse_statement(lines[0].text)
    statement = line.statement
    assert line.offer_id == offer_id
    assert verify_secret(lock, statement, bob.keeper.deal_secret(offer_id))

    await alice.sync()
    assert alice.board.published_statement(offer_id) == statement
    accepted = await alice.accept_offer(offer_id, rail="memory")
    assert accepted.role == "payer" and not accepted.secret_held
    await bob.sync()
    deal_a, deal_b = alice.deal(offer_id), bob.deal(offer_id)
    assert deal_a.state.statement == deal_b.state.statement == statement
    assert deal_b.state.payer_did == alice.did and deal_b.state.payee_did == bob.did

    await lock_as_payer(pair, deal_a, "memory")
    await reveal_as_payee(pair, deal_b)
    await assert_settled(pair, offer_id, "claimed")
