"""Twenty CLI calls and the attached app race against one real daemon: one owner, one nonce
sequence, no line posted twice, and every answer the same as the engine in-process gives."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

from textual.widgets import Input

from tclk_tui.daemon.remote import RemoteDoor
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.naming import OFFER_ROOM
from tclk_tui.tui.app import TclkApp
from tclk_tui.tui.offer_form import OfferFormScreen
from tests.daemon.conftest import run_cli
from tests.daemon.test_daemon_attach import SIZE, open_counterparty, settle

OFFERS = 12
READS = ("deals", "board", "identity", "rails")


async def _app_posts_an_offer(remote: RemoteDoor) -> str:
    app = TclkApp(remote)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        await settle(pilot, lambda: isinstance(app.screen, OfferFormScreen), "offer form")
        form = app.screen
        await settle(pilot, lambda: form.query("#field-amount"), "the form's fields")
        form.query_one("#field-amount", Input).value = "4242"
        form.query_one("#field-asset", Input).value = "FLOP"
        form.query_one("#field-rails", Input).value = "paper"
        await settle(pilot, lambda: not form.query_one("#form-post").disabled, "a clean draft")
        await pilot.press("ctrl+s")
        await settle(pilot, lambda: app.active_pane == "deals"
                     and app.deal_room.view is not None, "the app's new deal")
        deal_id = app.deal_room.view.deal_id
        await pilot.pause()  # let the pane switch finish before the app closes
        return deal_id


async def test_twenty_cli_calls_and_the_app_race_through_one_daemon(daemon, venue):
    def cli(*args: str):
        return run_cli(venue.url, daemon.home, "alice", "--json", *args)

    remote = RemoteDoor.attach(daemon.profile_dir)
    assert remote is not None
    remote.start()
    try:
        calls = [cli("offer", "--amount", str(1000 + i), "--asset", "FLOP", "--rails", "paper")
                 for i in range(OFFERS)]
        calls += [cli(READS[i % len(READS)]) for i in range(20 - OFFERS)]
        results, app_deal = await asyncio.gather(asyncio.gather(*calls),
                                                 _app_posts_an_offer(remote))
    finally:
        await remote.close()
    for code, out, err in results:
        assert code == 0, (out, err)
    posted = {json.loads(out)["deal"] for _, out, _ in results[:OFFERS]} | {app_deal}
    assert len(posted) == OFFERS + 1

    # The venue holds each of alice's lines once, under one strictly rising nonce sequence.
    bob = await open_counterparty(venue.url, daemon.home)
    try:
        board = (await bob.client.export(OFFER_ROOM)).records
    finally:
        await bob.close()
    did = json.loads((await cli("identity"))[1])["did"]
    mine = [r for r in board if r.sender == did]
    assert len(mine) == OFFERS + 1
    assert all(count == 1 for count in Counter(r.text for r in mine).values())
    nonces = [int(r.nonce) for r in sorted(mine, key=lambda r: r.seq)]
    assert nonces == sorted(nonces) and len(set(nonces)) == len(nonces)
    assert {try_decode_frame(r.text)["id"] for r in mine} == posted

    # Every read answers the same through the daemon as in-process.
    one_deal = sorted(posted)[0]
    reads = [("deals",), ("board", "--all"), ("identity",), ("rails",), ("status", one_deal),
             ("status", "0xnosuchdeal"), ("lock", one_deal)]
    through = [await cli(*args) for args in reads]
    await daemon.stop()
    alone = [await cli(*args) for args in reads]
    for args, (code_d, out_d, err_d), (code_i, out_i, err_i) in zip(reads, through, alone,
                                                                     strict=True):
        assert code_d == code_i, (args, err_d, err_i)
        answer_d, answer_i = json.loads(out_d), json.loads(out_i)
        if args[0] == "lock":  # a gate's facts state the time left now: compare the rest
            for answer in (answer_d, answer_i):
                answer["error"]["gate"].pop("facts")
        if args[0] == "rails":  # the one difference: a call alone sets the memory rail aside
            memory = answer_d["rails"].pop([r["id"] for r in answer_d["rails"]].index("memory"))
            assert memory["moves_value"] is False and answer_d.pop("set_aside") == {}
            assert "tclk-tui daemon" in answer_i.pop("set_aside")["memory"]
        assert answer_d == answer_i, args
    assert [code for code, _, _ in alone] == [0, 0, 0, 0, 0, 1, 1]
    assert json.loads(alone[5][1])["error"]["kind"] == "not-found"
    assert {d["deal"] for d in json.loads(alone[0][1])["deals"]} >= posted
