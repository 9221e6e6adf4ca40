"""An agent never reaches the vault: the commands that show a secret (the seed's backup, a
deal's secret, shares, a vote's salt), take one, or replace the seed are not tools, a manifest
that names one grants nothing, and a call to one is refused before anything is touched, on
every transport."""

from __future__ import annotations

import pytest

from tclk_tui.agents.catalog import CATALOG, READ, TOOL_NAMES, AgentTool, _check
from tclk_tui.agents.errors import CapabilityViolation
from tclk_tui.agents.mcp_stdio import _specs
from tclk_tui.engine.commands import REGISTRY
from tests.agents.support import manifest_text

VAULT_COMMANDS = sorted(name for name, c in REGISTRY.items()
                        if c.shows_secret or c.vault_alone or any(p.secret for p in c.params))


def test_no_tool_runs_a_command_that_shows_takes_or_replaces_a_secret():
    assert {"seed-backup", "seed-restore", "secret-reveal", "split", "combine", "commit-vote",
            "verify-vote"} <= set(VAULT_COMMANDS)
    run = {tool.command_name for tool in CATALOG}
    assert run.isdisjoint(VAULT_COMMANDS)
    assert TOOL_NAMES.isdisjoint(VAULT_COMMANDS)
    assert set(_specs().names()) == TOOL_NAMES  # the MCP server lists the same catalogue
    for name in VAULT_COMMANDS:  # a table naming one does not load
        with pytest.raises(ValueError, match="never an agent's"):
            _check((AgentTool(name, READ),))


async def test_a_manifest_naming_a_vault_command_grants_nothing(desks):
    for name in VAULT_COMMANDS:
        desks.manifest("alice", "greedy", manifest_text(tools=("board", name)))
        manifest = desks.alice.manifest("greedy")
        assert manifest.tools == frozenset() and "no such tool(s)" in manifest.problem, name
        assert desks.alice.tools_for("greedy") == []


async def test_a_call_to_a_vault_command_is_refused_before_anything_runs(desks):
    wallet = desks.pair.alice
    seed = wallet.vault.export_seed()
    desks.manifest("alice", "all", manifest_text())  # every tool there is
    listed = {t["name"] for t in desks.alice.tools_for("all")}
    assert listed == TOOL_NAMES and listed.isdisjoint(VAULT_COMMANDS)
    for name in VAULT_COMMANDS:
        with pytest.raises(CapabilityViolation, match="not granted") as caught:
            await desks.alice.call("all", name, {"yes": True, "replace": True})
        assert seed not in caught.value.reason
    calls = desks.alice.ledger.calls("all")
    assert {(c.tool, c.decision, c.result_kind) for c in calls} == {
        (name, "refused", "capability") for name in VAULT_COMMANDS}
    assert wallet.vault.export_seed() == seed
