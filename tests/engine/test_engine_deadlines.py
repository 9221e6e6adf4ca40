"""The deadline watch: one last safe moment per deal, warnings as it nears, no action taken."""

from __future__ import annotations

from tclk_tui.engine.deadlines import danger_level
from tclk_tui.engine.events import DeadlineWarning
from tests.engine.helpers import lock_as_payer, payer_offer_accepted


def test_danger_levels_by_share_of_the_window():
    hour = 3_600_000
    assert danger_level(0, hour, hour) == "calm"
    assert danger_level(hour - 20 * 60_000, hour, hour) == "soon"
    assert danger_level(hour - 4 * 60_000, hour, hour) == "danger"
    assert danger_level(hour, hour, hour) == "past"
    assert danger_level(hour + 1, hour, hour) == "past"


async def test_a_locked_payee_is_warned_before_claim_by_and_nothing_moves(pair):
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair)
    await lock_as_payer(pair, deal_a)
    await pair.bob.sync()
    queue = pair.bob.events.subscribe()
    view = deal_b.view()
    assert view.deadlines.last_safe_ms == deal_b.offer["claimByMs"]
    assert "reveal" in view.deadlines.last_safe_what

    pair.bob.tick()
    pair.clock.ms = deal_b.offer["claimByMs"] - 60_000
    pair.bob.tick()
    pair.clock.ms = deal_b.offer["claimByMs"]
    pair.bob.tick()
    pair.bob.tick()  # no repeat for an unchanged level

    warnings = []
    while not queue.empty():
        event = queue.get_nowait()
        if isinstance(event, DeadlineWarning) and event.deal_id == offer_id:
            warnings.append(event.level)
    assert warnings == ["danger", "past"]
    assert deal_b.state.status == "locked"  # the engine warns; it never acts by itself
    assert deal_b.request_reveal().late
