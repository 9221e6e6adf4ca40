"""A reconcile is logged by the deal that decided it: what the transcript says, what the rail
holds, whether they disagree and what is legal now; never the deal's secret."""

from __future__ import annotations

import logging

from tests.engine.helpers import Pair, payer_offer_accepted


async def test_a_reconcile_says_both_sides_and_what_is_legal_now(pair: Pair, caplog) -> None:
    caplog.set_level(logging.INFO, logger="tclk_tui")
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await deal_b.confirm(deal_b.request_cancel())  # Bob cancels; Alice has not seen it yet
    await deal_a.confirm(deal_a.request_lock("memory"))  # the rail takes the funds anyway
    await pair.sync()
    caplog.clear()
    await deal_a.reconcile()
    await deal_b.reconcile()
    said = [r.getMessage() for r in caplog.records if r.name == "tclk_tui.engine.deal"]
    assert said == [
        f"deal {offer_id} reconciled: the transcript says cancelled, the rail locked (they "
        "disagree); legal now: reconcile",
        f"deal {offer_id} reconciled: the transcript says cancelled, the rail locked (they "
        "disagree); legal now: reconcile",
    ]
    secret = pair.bob.keeper.deal_secret(offer_id)  # the payee's, held while it reconciles
    assert secret is not None
    text = "\n".join(r.getMessage() + repr(r.args) for r in caplog.records)
    assert secret[2:] not in text
