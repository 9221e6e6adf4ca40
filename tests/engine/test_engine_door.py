"""The door a face goes through: the registry's commands, the dry run of a gated one, and
read-only views; and the accept a face shows, judged by the engine alone."""

from __future__ import annotations

import pytest

from tclk_tui.engine.commands import CommandError, Unconfirmed
from tclk_tui.engine.door import LocalDoor, confirmed, offer_params, perform
from tclk_tui.engine.views import OfferDraft
from tests.engine.conftest import clock, pair  # noqa: F401 - the two-wallet fixtures
from tests.engine.helpers import Pair, draft, lock_as_payer, payer_offer_accepted


async def test_an_open_offer_may_be_accepted_and_not_twice_nor_ones_own(pair: Pair):  # noqa: F811
    view = await pair.alice.post_offer(draft())
    await pair.bob.sync()
    assert pair.bob.accept_refusal(view.deal_id) is None
    assert pair.alice.accept_refusal(view.deal_id) == "this is your own offer"
    await pair.bob.accept_offer(view.deal_id)
    assert pair.bob.accept_refusal(view.deal_id) is not None  # taken: by the machine's word
    assert pair.bob.accept_refusal("0x" + "ee" * 32) == "no such offer on the board"


async def test_a_gated_deal_action_is_stated_then_performed_through_the_registry(
        pair: Pair):  # noqa: F811
    offer_id, deal_a, _ = await payer_offer_accepted(pair, rails="memory")
    door = LocalDoor(pair.alice)
    params = {"deal": offer_id, "rail": "memory"}
    stated = door.state("lock", params)
    assert stated.action == "lock" and stated.allowed
    unconfirmed = await door.run("lock", params)
    assert isinstance(unconfirmed, Unconfirmed) and deal_a.state.status == "accepted"
    view = await perform(door, "lock", params, None)
    assert view.status == "locked" == deal_a.state.status
    with pytest.raises(CommandError) as info:  # performed once; the dry run says why not now
        await perform(door, "lock", params, None)
    assert info.value.kind == "refused"
    assert door.state("lock", params).blockers


async def test_a_reveal_confirms_with_the_code_typed_and_a_wrong_one_performs_nothing(
        pair: Pair):  # noqa: F811
    offer_id, deal_a, deal_b = await payer_offer_accepted(pair, rails="memory")
    await lock_as_payer(pair, deal_a, "memory")
    door = LocalDoor(pair.bob)
    request = door.state("reveal", {"deal": offer_id})
    assert request.confirm_code is not None
    wrong = "0000" if request.confirm_code != "0000" else "1111"
    with pytest.raises(CommandError) as info:
        await perform(door, "reveal", {"deal": offer_id}, wrong)
    assert info.value.kind == "usage" and deal_b.state.status == "locked"
    view = await perform(door, "reveal", {"deal": offer_id}, request.confirm_code)
    assert view.status == "claimed"


def test_the_confirm_param_is_the_commands_own():
    assert confirmed("lock", {"deal": "x"}, None) == {"deal": "x", "yes": True}
    assert confirmed("reveal", {"deal": "x"}, "ab12", True) == {
        "deal": "x", "confirm": "ab12", "late": True}
    assert confirmed("refund", {"deal": "x"}, None, True) == {"deal": "x", "yes": True}
    assert confirmed("seed-restore", {"seed": "s"}, "replace") == {"seed": "s",
                                                                   "replace": True}


def test_an_offer_draft_is_the_offer_commands_params():
    params = offer_params(OfferDraft(amount="5", asset="ETH", rails="paper", claim_in_s="90",
                                     refund_gap_s=" 60 ", expires_in_s="1h"))
    assert params["claim_in"] == 90 and params["refund_gap"] == 60
    assert params["expires_in"] == "1h"  # the command refuses it by name
    assert params["job"] is None and params["panel"] is None


async def test_a_face_states_no_ungated_command(pair: Pair):  # noqa: F811
    with pytest.raises(CommandError) as info:
        LocalDoor(pair.alice).state("deals")
    assert info.value.kind == "usage"


def test_the_views_the_socket_serves_are_the_doors_own():
    """One list of views: every read-only method of the door is in `VIEWS`, and the attached
    door has each of them."""
    import inspect

    from tclk_tui.daemon.remote import RemoteDoor
    from tclk_tui.engine.door import VIEWS, Door

    methods = {name for name, member in vars(Door).items()
               if inspect.isfunction(member) and not name.startswith("_")}
    assert methods - {"run", "state", "now_ms"} == set(VIEWS)
    assert all(callable(getattr(RemoteDoor, name, None)) for name in VIEWS)
