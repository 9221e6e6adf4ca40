"""The operator's keymap file: binding ids moved to other keys (Textual's `App.set_keymap`).

`keymap.toml` maps a binding id to a key, or to keys separated by commas:

    "board.accept" = "A"
    [deal]
    lock = "L"

A file Textual would apply as given can still hurt: a key given to two actions of one pane makes
one of them unreachable, a pane key moved onto a key the app answers everywhere shadows it. Each
such entry is refused with a sentence (the rest of the file still applies), a file that is not
TOML is refused whole, and nothing here is ever fatal: the operator reads why at start.

Some bindings keep their keys (`fixed`): a dialog's confirm key is guarded against a key typed
before the dialog was read (`DeliberateKeys`), and Tab is a priority binding that would take a
letter away from every text field. Their ids are known, so a file naming one is told why.
"""

from __future__ import annotations

import tomllib
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.keys import ASCII_KEY_NAMES, KEY_NAME_REPLACEMENTS

KEYMAP_FILE = "keymap.toml"
GLOBAL_SCOPE = "app"
# A deal key's hidden twin (which says why an action is not valid now) moves with it.
TWIN_SUFFIX = ".why"
FIXED_REASON = ("keeps its key: dialogs' keys and Tab are fixed, so a confirm key stays "
                "guarded against typing through a dialog")


@dataclass(frozen=True, slots=True)
class KeymapLoad:
    keymap: dict[str, str]  # binding id -> keys, for `App.set_keymap`
    problems: tuple[str, ...]  # one sentence per refused entry (or the whole file)


def normalize_key(key: str) -> str:
    """A key as Textual names it in bindings: "?" is "question_mark", "A" stays "A"."""
    if len(key) != 1 or key.isalnum():
        return key
    try:
        name = unicodedata.name(key).lower().replace("-", "_").replace(" ", "_")
    except ValueError:
        name = ASCII_KEY_NAMES.get(key, key)
    return KEY_NAME_REPLACEMENTS.get(name, name)


def binding_keys(binding: Binding, keymap: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The keys `binding` answers to once `keymap` is applied."""
    keys = keymap.get(binding.id, binding.key) if keymap and binding.id else binding.key
    return tuple(normalize_key(key.strip()) for key in keys.split(",") if key.strip())


def as_bindings(items: Iterable[BindingType]) -> list[Binding]:
    """Bindings as `Binding`s (a class may declare tuples), comma-separated keys kept."""
    out: list[Binding] = []
    for item in items:
        if isinstance(item, Binding):
            out.append(item)
        else:
            key, action, *rest = item
            out.append(Binding(key, action, rest[0] if rest else ""))
    return out


def bound_keys(node: DOMNode, binding_id: str, bindings: Iterable[BindingType]) -> str:
    """How the app writes the keys of binding `binding_id` (one of `bindings`), after the
    operator's keymap: a hint on screen names the key that works, not the default."""
    binding = next(b for b in as_bindings(bindings) if b.id == binding_id)
    app = node.app
    display = getattr(app, "keys_display", None)
    if callable(display):
        return str(display(binding))
    return ",".join(app.get_key_display(binding.with_key(key)) for key in binding_keys(binding))


def _flatten(table: Mapping[str, object], prefix: str = "") -> Iterable[tuple[str, object]]:
    """`deal.lock = "L"` and `[deal] lock = "L"` are the same entry."""
    for name, value in table.items():
        if isinstance(value, dict):
            yield from _flatten(value, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", value


def _parse_keys(value: object) -> tuple[str, ...] | str:
    """The keys of one entry, or why they are refused."""
    if not isinstance(value, str):
        return 'the keys must be a string, like "ctrl+l" or "l,L"'
    parts = [part.strip() for part in value.split(",")]
    if not value.strip() or any(not part for part in parts):
        return f"{value!r} names no key"
    for part in parts:
        if any(char.isspace() for char in part):
            return f"{part!r} is not a key name (no spaces; keys are separated by commas)"
    keys = tuple(dict.fromkeys(normalize_key(part) for part in parts))
    return keys


def load_keymap(path: Path | None, scopes: Mapping[str, Sequence[Binding]],
                fixed: Collection[str] = ()) -> KeymapLoad:
    """Read `path` against the bindings it may move.

    `scopes` holds every binding by where it answers (one pane, or `GLOBAL_SCOPE` for the app,
    which answers everywhere), bindings without an id included: they hold keys too. Ids in
    `fixed` are known but keep their keys.
    """
    if path is None or not path.exists():
        return KeymapLoad({}, ())
    where = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return KeymapLoad({}, (f"{where}: cannot be read ({type(exc).__name__}); "
                               f"the default keys are in use",))
    except tomllib.TOMLDecodeError as exc:
        return KeymapLoad({}, (f"{where}: not valid TOML ({exc}); the default keys are in use",))
    except RecursionError:
        return KeymapLoad({}, (f"{where}: not valid TOML (nested too deep); the default keys "
                               "are in use",))
    return resolve_keymap(dict(_flatten(data)), scopes, fixed, where=where)


def resolve_keymap(entries: Mapping[str, object], scopes: Mapping[str, Sequence[Binding]],
                   fixed: Collection[str] = (), *, where: str = KEYMAP_FILE) -> KeymapLoad:
    """The entries that can be applied safely, and a sentence for every other one."""
    scope_of: dict[str, str] = {}
    for scope, bindings in scopes.items():
        for binding in bindings:
            if binding.id:
                scope_of[binding.id] = scope
    problems: list[str] = []
    wanted: dict[str, tuple[str, ...]] = {}
    for binding_id, value in entries.items():
        if binding_id in fixed:
            problems.append(f"{where}: {binding_id} {FIXED_REASON}")
        elif binding_id not in scope_of or binding_id.endswith(TWIN_SUFFIX):
            problems.append(f"{where}: unknown binding id {binding_id!r} (the help screen, "
                            f"? or F1, lists what each key does)")
        elif isinstance(keys := _parse_keys(value), str):
            problems.append(f"{where}: {binding_id}: {keys}")
        else:
            wanted[binding_id] = keys

    # A key given to two ids that answer in the same place: neither can be trusted.
    twice: set[str] = set()
    ids = sorted(wanted)
    for i, first in enumerate(ids):
        for second in ids[i + 1:]:
            shared = set(wanted[first]) & set(wanted[second])
            if shared and _overlap(scope_of[first], scope_of[second]):
                key = sorted(shared)[0]
                problems.append(f"{where}: {key} is given to both {first} and {second}; "
                                f"both keep their default keys")
                twice.update((first, second))
    for binding_id in twice:
        wanted.pop(binding_id, None)

    # A moved key must not land on a key another binding keeps in the same place. Refusing one
    # entry gives its binding back its default keys, which can clash with another: repeat.
    changed = True
    while changed:
        changed = False
        for binding_id in sorted(wanted):
            clash = _clash(binding_id, wanted, scopes, scope_of)
            if clash is not None:
                problems.append(f"{where}: {binding_id}: {clash}; it keeps its default keys")
                del wanted[binding_id]
                changed = True
                break

    keymap: dict[str, str] = {}
    for binding_id, keys in wanted.items():
        keymap[binding_id] = ",".join(keys)
        twin = binding_id + TWIN_SUFFIX
        if twin in scope_of:
            keymap[twin] = keymap[binding_id]
    return KeymapLoad(keymap, tuple(problems))


def _overlap(a: str, b: str) -> bool:
    """Two scopes answer in the same place when they are one pane, or one is the app's."""
    return a == b or GLOBAL_SCOPE in (a, b)


def _moved_keys(binding: Binding, wanted: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    base = binding.id.removesuffix(TWIN_SUFFIX) if binding.id else None
    if base is not None and base in wanted:
        return wanted[base]
    return binding_keys(binding)


def _clash(binding_id: str, wanted: Mapping[str, tuple[str, ...]],
           scopes: Mapping[str, Sequence[Binding]], scope_of: Mapping[str, str]) -> str | None:
    """Why `binding_id`'s wanted keys cannot be had, if another binding answers to one."""
    mine = set(wanted[binding_id])
    home = scope_of[binding_id]
    for scope, bindings in scopes.items():
        if not _overlap(home, scope):
            continue
        for other in bindings:
            if other.id in (binding_id, binding_id + TWIN_SUFFIX):
                continue
            taken = mine & set(_moved_keys(other, wanted))
            if taken:
                what = other.description or other.action
                name = f"{other.id} ({what})" if other.id else what
                return f"{sorted(taken)[0]} is already {name}"
    return None
