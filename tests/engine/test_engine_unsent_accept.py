"""A deal row journaled without its outbox item (a kill, or a full disk, between the two) is
never stuck: after the restart the app says nothing was sent, and the operator may accept
again."""

from __future__ import annotations

from tclk_tui.engine.secrets.keeper import SecretPlan
from tclk_tui.protocol.naming import OFFER_ROOM
from tests.engine.helpers import Pair, draft


async def test_an_accept_journaled_but_never_sent_can_be_accepted_again(pair: Pair):
    view = await pair.alice.post_offer(draft())
    await pair.bob.sync()
    bob = pair.bob
    offer_record = bob.board.offer_record(view.deal_id)
    # What accept_offer journals first; the process dies before the outbox item is written.
    bob.book.journal_deal(view.deal_id, "payee", offer_record,
                          SecretPlan(offer_id=view.deal_id, nonce="00" * 8, lock="hash"), None)
    await bob.close()
    bob = await pair.reopen("bob")
    deal = bob.deal(view.deal_id)
    assert deal.state.status == "proposed" and bob.book.unsent_accept(view.deal_id)
    accepted = await bob.accept_offer(view.deal_id)
    assert accepted.status == "accepted"
    await pair.alice.sync()
    assert pair.alice.deal(view.deal_id).state.status == "accepted"
    board = await bob.client.export(OFFER_ROOM)
    assert sum(r.sender == bob.did for r in board.records) == 1  # one accept, said once
    assert not bob.book.unsent_accept(view.deal_id)
