"""A gated command's refusal at the command line is its one reason: a wrong code says the code
is wrong, a refund before its window says when the window opens, and nothing else."""

from __future__ import annotations

import json
import re

from tests.cli.helpers import run_cli

WRONG = "the code does not match: type the first 4 hex digits of the contract id"


async def _accepted_deal(venue, home) -> tuple[str, str]:
    async def run(profile, *args):
        code, out, err = await run_cli(venue.url, home, profile, *args)
        assert code == 0, err
        return json.loads(out)

    deal = (await run("alice", "offer", "--amount", "1000", "--asset", "FLOP", "--rails",
                      "paper", "--json"))["deal"]
    contract = (await run("bob", "accept", deal[:12], "--json"))["contract"]
    return deal, contract


def _other_code(contract: str) -> str:
    return "0000" if contract[2:6] != "0000" else "ffff"


async def test_a_wrong_reveal_code_says_so_and_the_right_one_claims(venue, home):
    deal, contract = await _accepted_deal(venue, home)
    code, _out, err = await run_cli(venue.url, home, "alice", "lock", deal[:12], "--yes")
    assert code == 0, err

    for typed in (_other_code(contract), contract[2:10]):  # a wrong code; the old 8-hex form
        code, out, err = await run_cli(venue.url, home, "bob", "reveal", deal[:12],
                                       "--confirm", typed)
        assert code == 2 and out == ""
        assert err.strip().splitlines() == [f"tclk-tui: {WRONG} (the four after 0x) to confirm"]

    code, out, _err = await run_cli(venue.url, home, "bob", "reveal", deal[:12], "--confirm",
                                    _other_code(contract), "--json")
    error = json.loads(out)["error"]
    assert code == 2 and error["kind"] == "usage" and error["wrong_code"] is True
    assert error["message"].startswith(WRONG) and contract[2:6] not in error["message"]

    code, out, err = await run_cli(venue.url, home, "bob", "reveal", deal[:12], "--confirm",
                                   contract[2:6].upper(), "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "claimed"


async def test_a_wrong_code_for_a_refused_reveal_says_both(venue, home):
    deal, contract = await _accepted_deal(venue, home)  # accepted, never locked
    code, _out, err = await run_cli(venue.url, home, "bob", "reveal", deal[:12], "--confirm",
                                    _other_code(contract))
    assert code == 2
    [line] = err.strip().splitlines()
    assert line.startswith(f"tclk-tui: {WRONG}")
    assert "even with the right code it is refused now: " in line and "not locked" in line


async def test_a_refund_before_its_window_says_only_when_it_opens(venue, home):
    deal, _contract = await _accepted_deal(venue, home)
    code, _out, err = await run_cli(venue.url, home, "alice", "lock", deal[:12], "--yes")
    assert code == 0, err
    for extra in ((), ("--yes",)):
        code, out, err = await run_cli(venue.url, home, "alice", "refund", deal[:12], *extra)
        assert code == 1 and out == ""
        [line] = err.strip().splitlines()
        assert re.fullmatch(r"tclk-tui: refused: the refund window is not open yet: it opens "
                            r"at (\d{4}-\d\d-\d\d )?\d\d:\d\d UTC \(in 1h5\dm\)", line), line
    code, out, _err = await run_cli(venue.url, home, "alice", "refund", deal[:12], "--json")
    error = json.loads(out)["error"]
    assert code == 1 and error["kind"] == "refused"
    assert error["gate"]["blockers"] == [error["message"].removeprefix("refused: ")]
