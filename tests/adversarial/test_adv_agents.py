"""A greedy or compromised agent under its grant: what it writes reaches the operator's
terminal inert, and what it calls is checked as the engine will act."""

from __future__ import annotations

import pytest

from tclk_tui.agents.errors import ToolError
from tclk_tui.cli import main
from tests.agents.conftest import desks  # noqa: F401
from tests.agents.support import manifest_text

OSC52 = "\x1b]52;c;aGVsbG8=\x07"


async def test_an_agents_tool_name_reaches_agents_log_inert(desks, capsys):  # noqa: F811
    desks.manifest("alice", "bot", manifest_text())
    for tool in (OSC52 + "board", "board\u202e"):
        with pytest.raises(ToolError):
            await desks.alice.call("bot", tool, {"note": OSC52})
    home = desks.pair.data_dir
    assert main(["--home", str(home), "--profile", "alice", "agents", "log"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out, repr(out)
    assert "\\x1b]52" in out


@pytest.mark.parametrize("wait", [10**400, -(10**400), True, "9" * 5000, 1e308])
async def test_a_wait_no_clock_can_hold_is_a_refusal_or_ignored_and_journaled(
        desks, wait):  # noqa: F811
    desks.manifest("alice", "bot", manifest_text())
    try:
        await desks.alice.call("bot", "board", {"wait_s": wait})
    except ToolError as exc:
        assert exc.kind, exc
    assert [c.tool for c in desks.alice.ledger.calls("bot")] == ["board"]
