"""The grant is checked first: a denied call touches no transport, no rail, no engine."""

from __future__ import annotations

import pytest

from tclk_tui.agents.errors import BadParams, CapabilityViolation, UnknownTool
from tclk_tui.agents.manifest import Manifest
from tclk_tui.agents.tools import ToolRegistry
from tests.agents.support import manifest_text


class Recorder:
    """Wraps an object and records every attribute touched on it."""

    def __init__(self, inner, touches: list[str], name: str) -> None:
        self._inner, self._touches, self._name = inner, touches, name

    def __getattr__(self, attr):
        self._touches.append(f"{self._name}.{attr}")
        return getattr(self._inner, attr)


def test_the_seed_contract_grant_then_lookup_then_run():
    ran = []
    registry = ToolRegistry()
    registry.register("oracle", "Draw a cryptic omen. Params: {seed: str}.",
                      lambda call: ran.append(call.params) or {"omen": "ok"})
    teller = Manifest(name="fortune-teller", tools=frozenset({"oracle", "ghost"}))
    whisperer = Manifest(name="scene-whisperer")
    import asyncio

    assert asyncio.run(registry.call("fortune-teller", teller, "oracle", {})) == {"omen": "ok"}
    with pytest.raises(CapabilityViolation):
        asyncio.run(registry.call("scene-whisperer", whisperer, "oracle", {}))
    with pytest.raises(KeyError):
        asyncio.run(registry.call("fortune-teller", teller, "ghost", {}))
    assert ran == [{}]
    assert "oracle: Draw a cryptic omen" in registry.describe(teller)
    assert registry.describe(whisperer) == "AVAILABLE TOOLS\n(none)"


async def test_a_denied_call_touches_nothing(desks):
    wallet = desks.pair.alice
    requests = []

    async def record(request):
        requests.append(str(request.url))

    wallet.client._http.event_hooks["request"].append(record)
    touches: list[str] = []
    desks.alice.backend = Recorder(desks.alice.backend, touches, "backend")
    wallet.rails["memory"] = Recorder(wallet.rails["memory"], touches, "rail")
    desks.manifest("alice", "reader", manifest_text(tools=("board", "status")))
    outbox_before = len(wallet.journal.outbox.items())
    for tool, params in [("lock", {"deal": "x"}), ("reveal", {"deal": "x"}),
                         ("offer", {"role": "payer", "amount": "1", "asset": "FLOP",
                                    "rails": "memory"})]:
        with pytest.raises(CapabilityViolation, match="not granted"):
            await desks.alice.call("reader", tool, params)
    with pytest.raises(CapabilityViolation, match="no valid manifest"):
        await desks.alice.call("nobody", "board", {})
    assert requests == [] and touches == []
    assert len(wallet.journal.outbox.items()) == outbox_before
    calls = desks.alice.ledger.calls("reader")
    assert [(c.tool, c.decision, c.result_kind) for c in reversed(calls)] == [
        ("lock", "refused", "capability"), ("reveal", "refused", "capability"),
        ("offer", "refused", "capability")]
    # A granted call goes through (the recorder sees it), so the recorder could have failed.
    await desks.alice.call("reader", "board", {})
    assert touches == ["backend.run"]


async def test_unknown_tools_and_bad_params_run_nothing(desks):
    desks.manifest("alice", "a", manifest_text(tools=("board",)))
    with pytest.raises(CapabilityViolation):
        await desks.alice.call("a", "rm -rf /", {})
    with pytest.raises(BadParams, match="unknown parameter"):
        await desks.alice.call("a", "board", {"all": True, "grant": "everything"})
    with pytest.raises(BadParams, match="boolean"):
        await desks.alice.call("a", "board", {"all": "yes"})
    with pytest.raises(UnknownTool):
        desks.alice.registry.spec("nope")


async def test_a_manifest_that_does_not_parse_grants_nothing_and_says_why(desks):
    desks.manifest("alice", "broken", 'tools = ["board"\n')
    desks.manifest("alice", "typo", 'tools = ["board"]\ntoolz = ["lock"]\n')
    desks.manifest("alice", "fake", 'tools = ["board", "withdraw_all"]\n')
    desks.manifest("alice", "policy", 'tools = ["lock"]\n[approval]\nlock = "yolo"\n')
    for name, why in [("broken", "not valid TOML"), ("typo", "unknown key(s): toolz"),
                      ("fake", "no such tool(s): withdraw_all"), ("policy", "auto or ask")]:
        manifest = desks.alice.manifest(name)
        assert manifest.tools == frozenset() and why in manifest.problem
        with pytest.raises(CapabilityViolation, match="no valid manifest"):
            await desks.alice.call(name, "board", {})
        assert desks.alice.tools_for(name) == []


async def test_tools_list_is_exactly_the_grant_with_schemas(desks):
    desks.manifest("alice", "a", manifest_text(tools=("board", "reveal")))
    listed = desks.alice.tools_for("a")
    assert [t["name"] for t in listed] == ["board", "reveal"]
    reveal = listed[1]["inputSchema"]
    assert reveal["required"] == ["deal"] and reveal["additionalProperties"] is False
    assert "wait_s" in reveal["properties"]
