"""The protocol's modules import one another without a cycle, so each can be read (and loaded)
after the ones it builds on: canonical text, then the frame table and ids, then the line codec."""

from __future__ import annotations

import ast
from pathlib import Path

PROTOCOL = Path(__file__).resolve().parents[2] / "tclk_tui" / "protocol"
PACKAGE = "tclk_tui.protocol"


def _targets(path: Path, modules: set[str]) -> set[str]:
    """The protocol modules `path` imports, at any depth of its tree (a deferred import in a
    function is still an edge: it only hides the cycle until the call)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            if name.startswith(PACKAGE + "."):
                head = name[len(PACKAGE) + 1:].split(".")[0]
                if head in modules:
                    found.add(head)
    found.discard(path.stem)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = {p.stem: p for p in PROTOCOL.glob("*.py") if p.stem != "__init__"}
    return {name: _targets(path, set(paths)) for name, path in paths.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path that returns to its start, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)) is not None:
            return cycle
    return None


def test_the_protocol_modules_import_one_another_without_a_cycle() -> None:
    assert find_cycle(import_graph()) is None


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"codec": {"frames"}, "frames": {"ids"}, "ids": {"codec"}}) == [
        "codec", "frames", "ids", "codec"]
    assert find_cycle({"codec": {"frames"}, "frames": set()}) is None


def test_the_canonical_text_builds_on_nothing_but_the_errors() -> None:
    assert import_graph()["canonical"] == {"errors"}
