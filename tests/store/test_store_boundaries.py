"""The journal's stores meet only through public names: one `Database` whose `transaction()`,
`one()` and `all()` every store (the agents' ledger too) writes and reads through, and no
module, in store/ or above it, touches another's underscore names (its connection, its lock,
its transaction helpers). Checked on the source, like the layer rule."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "tclk_tui"
STORE = PACKAGE / "store"
MAX_CLASS_LINES = 400


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own(node: ast.Attribute) -> bool:
    """`self._x` / `cls._x`: a class's own private, which it may touch."""
    return isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")


# What a module calls the journal and its stores: a private name touched through one of these
# is a store's private whatever the name.
HANDLES = {"journal", "db", "database", "agents", "ledger", "deals", "records", "cursors",
           "outbox", "settings", "identities", "nonces"}


def _tail(node: ast.expr) -> str:
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name.lstrip("_")


def _defined(tree: ast.AST) -> set[str]:
    """The underscore names a module's own code defines: its functions, methods and the
    attributes its classes set on themselves."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _private(node.name):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and _own(node) and _private(node.attr):
            names.add(node.attr)
    return names


def _store_privates() -> set[str]:
    return set().union(*(_defined(ast.parse(p.read_text(encoding="utf-8")))
                         for p in STORE.glob("*.py")))


def _reaches(tree: ast.AST, privates: set[str] | None) -> list[tuple[int, str]]:
    """Where `tree` imports a store module's private name, or touches `obj._name` of an object
    not its own: any such object inside store/ (`privates` None); above it, one reached
    through a journal handle or a name only the store defines (a module's own classes'
    privates, `wallet._lock` in wallet.py, are its own business)."""
    own = _defined(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tclk_tui.store"):
            found += [(node.lineno, f"imports {node.module}.{alias.name}")
                      for alias in node.names if _private(alias.name)]
        elif isinstance(node, ast.Attribute) and _private(node.attr) and not _own(node) and (
                privates is None or _tail(node.value) in HANDLES
                or (node.attr in privates and node.attr not in own)):
            found.append((node.lineno, f"touches {ast.unparse(node)}"))
    return found


def offenders_in_store(sources: dict[str, str]) -> list[str]:
    return [f"{name}:{line} {what}" for name, source in sorted(sources.items())
            for line, what in _reaches(ast.parse(source), None)]


def offenders_above_store(sources: dict[str, str], privates: set[str]) -> list[str]:
    return [f"{name}:{line} {what}" for name, source in sorted(sources.items())
            for line, what in _reaches(ast.parse(source), privates)]


def _sources(paths) -> dict[str, str]:
    return {str(p.relative_to(PACKAGE)): p.read_text(encoding="utf-8") for p in paths}


def test_no_store_module_touches_another_objects_private_names():
    assert offenders_in_store(_sources(sorted(STORE.glob("*.py")))) == []


def test_no_module_above_the_store_touches_a_store_private_name():
    above = [p for p in sorted(PACKAGE.rglob("*.py")) if STORE not in p.parents]
    assert offenders_above_store(_sources(above), _store_privates()) == []


def test_the_rule_catches_the_ledger_reaching_into_the_journal():
    """What the agents' ledger once did (the journal's lock, connection and helpers) is what
    the two checks above refuse."""
    reaching = (
        "from tclk_tui.store.database import _create_private\n"
        "class AgentLedger:\n"
        "    def spent(self):\n"
        "        with self._journal._lock:\n"
        "            return self._journal._all('SELECT 1')\n"
    )
    assert offenders_in_store({"agent_ledger.py": reaching}) == [
        "agent_ledger.py:1 imports tclk_tui.store.database._create_private",
        "agent_ledger.py:4 touches self._journal._lock",
        "agent_ledger.py:5 touches self._journal._all",
    ]
    engine = ("class Mail:\n"
              "    def f(self, wallet):\n"
              "        wallet.journal.db._live()\n"
              "        return self._journal._tx()\n")
    assert offenders_above_store({"engine/x.py": engine}, _store_privates()) == [
        "engine/x.py:3 touches wallet.journal.db._live",
        "engine/x.py:4 touches self._journal._tx"]


def test_every_store_class_is_under_the_size_limit():
    big = []
    for path in sorted(STORE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_CLASS_LINES:
                    big.append(f"{path.name}:{node.name} has {lines} lines")
    assert big == []
