"""A rail whose locks live in one process (memory) cannot work from a CLI call that ends with
it: offering it, accepting on it and locking on it are refused there, saying why and what to
use instead (paper, or the daemon). tests/daemon/test_daemon_rails.py: through a daemon it is
fine."""

from __future__ import annotations

import json

from tclk_tui.engine.views import OfferDraft
from tclk_tui.engine.wallet import Wallet
from tests.cli.helpers import make_vault, run_cli, vault_of

WHY = "the memory rail keeps its locks inside one process"


def _says_why_and_what_instead(message: str) -> None:
    assert WHY in message and "paper" in message and "tclk-tui daemon" in message, message


async def test_offering_memory_from_the_cli_is_refused_before_anything_is_posted(venue, home):
    for rails in ("memory", "paper,memory"):
        code, out, err = await run_cli(venue.url, home, "alice", "offer", "--amount", "5",
                                       "--asset", "FLOP", "--rails", rails, "--json")
        error = json.loads(out)["error"]
        assert code == 2 and error["kind"] == "usage", err
        assert [f["field"] for f in error["fields"]] == ["rails"]
        _says_why_and_what_instead(error["message"])
    code, out, _err = await run_cli(venue.url, home, "alice", "board", "--all", "--json")
    assert code == 0 and json.loads(out)["offers"] == []
    code, out, _err = await run_cli(venue.url, home, "alice", "rails", "--json")
    answer = json.loads(out)
    assert [r["id"] for r in answer["rails"]] == ["paper"]
    _says_why_and_what_instead(answer["set_aside"]["memory"])


async def test_accepting_or_locking_on_memory_from_the_cli_is_refused(venue, home):
    make_vault(home, "carol")
    carol = await Wallet.open("carol", venue_url=venue.url, data_dir=home,
                              vault=vault_of(home, "carol"), follow=False)
    try:  # a long-lived wallet (an app) may offer memory; carol is the payee
        only_memory = (await carol.post_offer(OfferDraft(
            role="payee", amount="5", asset="FLOP", rails="memory"))).deal_id
        both = (await carol.post_offer(OfferDraft(
            role="payee", amount="6", asset="FLOP", rails="memory,paper"))).deal_id
    finally:
        await carol.close()

    for args in ((only_memory[:12],), (both[:12], "--rail", "memory")):
        code, _out, err = await run_cli(venue.url, home, "alice", "accept", *args)
        assert code == 1 and len(err.strip().splitlines()) == 1, err
        _says_why_and_what_instead(err)
    code, _out, err = await run_cli(venue.url, home, "alice", "accept", both[:12])
    assert code == 0, err  # on paper, the one rail this call can keep its word on

    code, _out, err = await run_cli(venue.url, home, "alice", "lock", both[:12], "--rail",
                                    "memory", "--yes")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "tclk-tui: refused: " in err
    _says_why_and_what_instead(err)
    code, out, err = await run_cli(venue.url, home, "alice", "status", both[:12], "--json")
    assert code == 0 and json.loads(out)["status"] == "accepted", err
