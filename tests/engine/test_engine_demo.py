"""The demo's scripted agent behaves as an agent would: it locks, and refunds when no reveal
comes before the window opens; it accepts the operator's offers and claims once it has checked
the rail."""

from __future__ import annotations

import time

from tclk_tui.demo.session import DEMO_OFFERS, demo_session
from tests.engine.helpers import Clock, draft, until


async def test_agent_refunds_after_the_window_when_the_operator_never_reveals():
    clock = Clock(int(time.time() * 1000))
    async with demo_session(clock_ms=clock) as session:
        wallet, agent = session.wallet, session.counterparty.wallet
        await until(lambda: len(wallet.board) >= len(DEMO_OFFERS), timeout_s=10)
        target = next(r for r in wallet.board.query() if r.lock == "hash" and not r.mine)
        await wallet.accept_offer(target.offer_id)
        deal = wallet.deal(target.offer_id)
        await until(lambda: deal.state.status == "locked", timeout_s=10)
        clock.advance(deal.offer["refundAfterMs"] - clock.ms)
        agent.tick()  # the warning the agent reacts to, without waiting for its 1 s tick
        await until(lambda: deal.state.status == "refunded", timeout_s=10)
        notes = [r.summary for r in deal.view().records if not r.mine]
        assert any("No reveal before the deadline" in n for n in notes)


async def test_agent_accepts_an_operator_offer_and_claims_after_the_lock():
    async with demo_session() as session:
        wallet = session.wallet
        view = await wallet.post_offer(draft(amount="31337"))
        deal = wallet.deal(view.deal_id)
        await until(lambda: deal.state.status == "accepted", timeout_s=10)
        request = deal.request_lock()
        assert request.allowed, request.blockers
        await deal.confirm(request)
        await until(lambda: deal.state.status == "claimed", timeout_s=10)
