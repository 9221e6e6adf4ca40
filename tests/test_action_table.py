"""One table of actions (`engine.actions`): no layer writes the list again, and every layer that
reads it agrees with it.

The scan reads the package's source: a literal collection (tuple, list, set, a dict's keys, a
`Literal[...]`) naming two or more actions, as strings or as the first field of rows
(`("lock", "l")`, `AgentTool("lock", ...)`), is a second copy of the list, wherever it is. A
dict whose values are all code (a formatter, a handler per command) is a dispatch, not a list.
The protocol's frame grammar keeps its own list of frame types and per-type tables (that list
is the protocol's, and the action table is checked against it below): `ALLOWED` names those
files and why.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tclk_tui.agents.catalog import BY_NAME, GATED_TOOLS, TOOL_NAMES
from tclk_tui.engine import legal
from tclk_tui.engine.actions import (
    ACTIONS,
    DEAL_ACTIONS,
    GATE_ACTIONS,
    GATE_TITLES,
    GATED_DEAL_ACTIONS,
    GATES,
    RAIL_OPS,
    Action,
)
from tclk_tui.engine.commands import REGISTRY
from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.gates import GateRequest
from tclk_tui.protocol.frames import FRAME_TYPES
from tclk_tui.protocol.machine import MOVES_TO, NEXT_STATUS, open_contract
from tclk_tui.tui.gate_screen import ACTION_TITLES
from tclk_tui.tui.key_scopes import binding_scopes
from tests.protocol.test_protocol_transcript import OFFER, PAYER

PACKAGE = Path(__file__).resolve().parents[1] / "tclk_tui"
TABLE = PACKAGE / "engine" / "actions.py"
ALLOWED = {
    # The protocol's frame grammar: its own list of frame types, their fields and checks.
    "protocol/frames.py": "FRAME_TYPES, FRAME_FIELDS and the per-type checks",
    "protocol/canonical_lines.py": "each frame type's canonical line pattern",
    "protocol/machine.py": "the state machine's transitions and rules, per frame type",
}
NAMES = frozenset(ACTIONS) | GATE_ACTIONS


def _name(node: ast.expr | None) -> str | None:
    """The action a literal element names: a string, a row's first field, a declaration's
    first argument."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value if node.value in NAMES else None
    if isinstance(node, ast.Tuple | ast.List) and node.elts:
        return _name(node.elts[0])
    if isinstance(node, ast.Call) and node.args:
        return _name(node.args[0])
    return None


def _is_data(node: ast.expr | None) -> bool:
    """A dict value that says something about its key (a label, a row, a declaration naming
    the action again), unlike a function that handles it."""
    return isinstance(node, ast.Constant | ast.Tuple | ast.List | ast.Set | ast.Dict) or (
        isinstance(node, ast.Call) and _name(node) is not None)


def action_lists(source: str) -> list[tuple[int, list[str]]]:
    """Every literal collection in `source` naming two or more actions, with its line."""
    tree = ast.parse(source)
    exports = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)}
    found = []
    for node in ast.walk(tree):
        if id(node) in exports:
            continue  # a module's exported names (a builder named for its action), no list
        if isinstance(node, ast.Dict):
            if not any(_is_data(v) for v in node.values):
                continue  # a dispatch: each command's own code
            elements: list[ast.expr | None] = list(node.keys)
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            elements = list(node.elts)
        else:
            continue
        named = sorted({n for n in map(_name, elements) if n is not None})
        if len(named) >= 2:
            found.append((node.lineno, named))
    return found


def test_no_module_outside_the_table_writes_a_list_of_actions() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if path == TABLE or where in ALLOWED:
            continue
        offenders += [f"{where}:{line}: {names}"
                      for line, names in action_lists(path.read_text(encoding="utf-8"))]
    assert offenders == []


@pytest.mark.parametrize("source", [
    'GATED = frozenset({"lock", "reveal"})',
    'KEYS = (("accept", "a"), ("lock", "l"))',
    'LABELS = {"refund": "Refund", "cancel": "Cancel"}',
    'RULES = {"lock": Rule("lock", guard), "reveal": Rule("reveal", guard)}',
    'CATALOG = (Tool("heartbeat", OWN), Tool("receipt", OWN))',
    'Kind = Literal["seed-backup", "arbiter-release"]',
    'if action in ("lock", "refund"): pass',
])
def test_the_scan_sees_each_shape_of_a_copy(source: str) -> None:
    assert action_lists(source)


def test_the_scan_lets_a_dispatch_an_export_and_a_single_name_be() -> None:
    assert action_lists('TEXT = {"accept": accept, "heartbeat": heartbeat}') == []
    assert action_lists('__all__ = ["lock", "reveal"]') == []
    assert action_lists('if action == "lock": pass') == []


def test_the_allowed_grammar_is_the_protocols_and_still_lists_frame_types() -> None:
    for where in ALLOWED:
        assert action_lists((PACKAGE / where).read_text(encoding="utf-8")), where


# -- every layer agrees with the table ------------------------------------------------------


def test_the_registry_runs_every_action_gated_as_the_table_says() -> None:
    for action in DEAL_ACTIONS:
        command = REGISTRY[action.name]
        assert (command.gated, command.confirm) == (action.gated, action.confirm), action.name
        if action.confirm is not None:
            assert action.confirm in command.param_names
    for gate in GATES:
        assert REGISTRY[gate.command].gated and REGISTRY[gate.command].confirm == gate.confirm
    assert {c.name for c in REGISTRY.values() if c.gated} == {g.command for g in GATES}


def test_the_gates_are_the_tables() -> None:
    assert {g.name for g in GATES} == GATE_ACTIONS
    assert {a.name for a in DEAL_ACTIONS if a.gated} == GATED_DEAL_ACTIONS <= GATE_ACTIONS
    for name in GATE_ACTIONS:
        GateRequest(action=name, deal_id="", contract=None, facts=())
    with pytest.raises(ValueError, match="not a gated action"):
        GateRequest(action="heartbeat", deal_id="", contract=None, facts=())
    assert ACTION_TITLES == GATE_TITLES
    assert set(GATE_TITLES) <= GATE_ACTIONS


def test_each_gated_action_is_requested_by_the_deal_and_stated_by_its_command() -> None:
    for action in DEAL_ACTIONS:
        if action.request is not None:
            assert callable(getattr(DealSession, action.request)), action.name
            assert REGISTRY[action.name].state is not None, action.name  # the door states it


def test_legal_now_dry_runs_each_builder_and_its_frame_is_the_actions() -> None:
    state = open_contract(OFFER)
    judged = [a for a in DEAL_ACTIONS if a.builder is not None]
    assert tuple(a.name for a in judged) == legal.DEAL_ACTIONS
    for action in judged:
        built = legal.prospect(action.name, state, did=PAYER, deal_id=OFFER["id"])
        assert built.frame["type"] == action.name == action.frame
        assert any(kind == action.name for _, kind in NEXT_STATUS)  # the machine judges it
    assert {a.frame for a in DEAL_ACTIONS if a.frame} <= set(FRAME_TYPES)
    assert set(MOVES_TO) <= set(FRAME_TYPES)


def test_the_agents_catalog_and_manifests_take_the_tables_policy_classes() -> None:
    for action in DEAL_ACTIONS:
        if action.agents is None:
            assert action.name not in TOOL_NAMES
        else:
            tool = BY_NAME[action.name]
            assert tool.policy.name == action.agents and tool.gated == action.gated
    assert {t for t in GATED_TOOLS if t in ACTIONS} == {
        a.name for a in DEAL_ACTIONS if a.agents and a.gated}


def test_the_deal_rooms_key_scope_binds_each_action_to_its_key_and_label() -> None:
    deals = binding_scopes()["deals"]
    bound = {b.id: b for b in deals if b.id and b.id.startswith("deal.")}
    expected = {f"deal.{a.name}": a for a in DEAL_ACTIONS}
    assert set(bound) == set(expected) | {f"{i}.why" for i in expected}
    for binding_id, action in expected.items():
        for binding in (bound[binding_id], bound[binding_id + ".why"]):
            assert (binding.key, binding.description) == (action.key, action.label)


def test_cancel_wait_offers_the_rail_operations_the_actions_run() -> None:
    assert REGISTRY["cancel-wait"].param("action").choices == RAIL_OPS == ("lock", "claim",
                                                                           "refund")


def test_a_row_that_is_half_gated_is_refused() -> None:
    with pytest.raises(ValueError, match="gated action"):
        Action("x", "X", "x", gated=True, confirm="yes")
    with pytest.raises(ValueError, match="gated action"):
        Action("x", "X", "x", title="X it")
    with pytest.raises(ValueError, match="builder"):
        Action("x", "X", "x", builder=ACTIONS["lock"].builder)
