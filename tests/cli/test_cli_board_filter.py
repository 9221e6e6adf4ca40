"""`board --filter` reads the app's filter line: `asset:X rail:X lock:... role:... status:any`
are fields, anything else is words to search for."""

from __future__ import annotations

import json

from tests.cli.helpers import run_cli


async def test_the_board_filter_takes_the_apps_syntax(venue, home):
    async def offers(profile, *args):
        code, out, err = await run_cli(venue.url, home, profile, *args, "--json")
        assert code == 0, err
        return json.loads(out)

    flop = (await offers("alice", "offer", "--amount", "1000", "--asset", "FLOP", "--rails",
                         "paper"))["deal"]
    zzz = (await offers("alice", "offer", "--amount", "7", "--asset", "ZZZ", "--rails",
                        "paper", "--lock", "point", "--role", "payee"))["deal"]
    accepted = (await offers("alice", "offer", "--amount", "9", "--asset", "FLOP", "--rails",
                             "paper"))["deal"]
    await offers("bob", "accept", accepted[:12])

    async def shown(text, *extra):
        answer = await offers("bob", "board", "--filter", text, *extra)
        return {o["offer"] for o in answer["offers"]}

    assert await shown("asset:ZZZ") == {zzz}
    assert await shown("lock:point") == {zzz}
    assert await shown("role:payer") == {flop}
    assert await shown("asset:FLOP rail:paper") == {flop}
    assert await shown("rail:memory") == set()
    assert await shown("asset:FLOP status:any") == {flop, accepted}
    assert await shown("asset:FLOP", "--all") == {flop, accepted}
    assert await shown("status:accepted") == {accepted}
    assert await shown(zzz[:14]) == {zzz}  # words still search the text
    code, out, err = await run_cli(venue.url, home, "bob", "board", "--filter", "asset:ZZZ")
    assert code == 0 and zzz[:18] in out and flop[:18] not in out, err
