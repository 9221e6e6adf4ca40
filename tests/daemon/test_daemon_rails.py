"""Through a daemon the engine lives on, so the memory rail the bare CLI refuses can be
chosen (tests/cli/test_cli_rails.py)."""

from __future__ import annotations

import json

from tests.daemon.conftest import run_cli


async def test_offering_memory_through_the_daemon_is_accepted(venue, home, daemon):
    code, out, err = await run_cli(venue.url, home, "alice", "offer", "--amount", "5",
                                   "--asset", "FLOP", "--rails", "memory", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "proposed"
    code, out, err = await run_cli(venue.url, home, "alice", "rails", "--json")
    assert code == 0 and "memory" in [r["id"] for r in json.loads(out)["rails"]], err
