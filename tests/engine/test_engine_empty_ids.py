"""An empty deal id or a bare `0x` never selects a deal, an offer or a case: a prefix names one
only with at least 4 hex digits after the 0x."""

from __future__ import annotations

import pytest

from tclk_tui.engine.commands import CommandError, execute
from tclk_tui.engine.errors import EngineError
from tests.engine.helpers import Pair, draft, payer_offer_accepted


@pytest.mark.parametrize("name", ["", "0x", " ", "0X", "0x8", "0x82f", "x82f6", "0x 82f6"])
async def test_nothing_is_selected_by_an_empty_or_bare_id(pair: Pair, name: str):
    offer_id = (await pair.alice.post_offer(draft(rails="memory"))).deal_id
    await pair.bob.sync()
    with pytest.raises(CommandError) as caught:
        await execute(pair.bob, "accept", {"offer": name})
    assert caught.value.kind in ("not-found", "usage")
    assert offer_id not in pair.bob.book  # nothing was accepted
    with pytest.raises(EngineError):
        pair.alice.deal(name)


async def test_lock_with_an_empty_deal_locks_nothing(pair: Pair):
    offer_id, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    for name in ("", "0x"):
        with pytest.raises(CommandError):
            await execute(pair.alice, "lock", {"deal": name, "yes": True})
        with pytest.raises(CommandError):
            await execute(pair.alice, "status", {"deal": name})
    assert deal_a.state.status == "accepted"
    # A real prefix still works.
    answer = await execute(pair.alice, "status", {"deal": offer_id[:6]})
    assert answer["deal"] == offer_id
