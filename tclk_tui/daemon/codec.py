"""Engine values (events, views, gate requests) as JSON and back, for the control socket.

Values are frozen dataclasses of str/int/bool/None, tuples, frozensets and other such values;
the wire form is a plain object with a `"type"` naming the class, so a subscriber in any
language can read it. Decoding rebuilds the exact value, tuples and frozensets included.

A whole board is 20,000 rows, so both directions do per class, once, what they can: the field
names, and for each field a converter chosen from its type hint.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable
from typing import Any

# Exact types sent as they are (the branches below would return them unchanged anyway).
_PLAIN: frozenset[type] = frozenset({str, int, bool, float, type(None)})


_NAMES: dict[type, tuple[str, ...] | None] = {}


def _field_names(cls: type) -> tuple[str, ...] | None:
    """The fields of a dataclass `cls`, None for any other class (remembered per class)."""
    try:
        return _NAMES[cls]
    except KeyError:
        names = (tuple(f.name for f in dataclasses.fields(cls))
                 if dataclasses.is_dataclass(cls) else None)
        _NAMES[cls] = names
        return names


def to_wire(value: Any) -> Any:
    cls = type(value)
    if cls in _PLAIN:
        return value
    names = _field_names(cls)
    if names is not None:
        out: dict[str, Any] = {"type": cls.__name__}
        for name in names:
            item = getattr(value, name)
            out[name] = item if type(item) in _PLAIN else to_wire(item)
        return out
    if isinstance(value, frozenset | set):
        return sorted(to_wire(v) for v in value)
    if isinstance(value, tuple | list):
        return [to_wire(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_wire(v) for k, v in value.items()}
    return value


Convert = Callable[[Any], Any]


class Decoder:
    """Rebuilds values of the given dataclasses from their wire form, by their type hints."""

    def __init__(self, *classes: type) -> None:
        self._classes = {c.__name__: c for c in classes}
        self._builders: dict[type, Convert] = {}

    def knows(self, obj: Any) -> bool:
        """Whether `obj` is the wire form of one of this decoder's classes."""
        return isinstance(obj, dict) and obj.get("type") in self._classes

    def decode(self, obj: Any) -> Any:
        if not isinstance(obj, dict) or obj.get("type") not in self._classes:
            raise ValueError(f"not a known value: {str(obj)[:80]}")
        return self._build(self._classes[obj["type"]], obj)

    def _build(self, cls: type, obj: dict[str, Any]) -> Any:
        builder = self._builders.get(cls)
        if builder is None:
            builder = self._builders[cls] = self._builder(cls)
        return builder(obj)

    def _builder(self, cls: type) -> Convert:
        hints = _hints(cls)
        fields = [(f.name, self._converter(hints[f.name])) for f in dataclasses.fields(cls)]

        def build(obj: dict[str, Any]) -> Any:
            kwargs = {}
            for name, convert in fields:
                if name in obj:
                    value = obj[name]
                    kwargs[name] = None if value is None else convert(value)
            return cls(**kwargs)

        return build

    def _converter(self, hint: Any) -> Convert:
        """What `value` (never None: that stays None) becomes for a field typed `hint`."""
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            real = [a for a in args if a is not type(None)]
            if len(real) == 1:
                return self._converter(real[0])
            return self._any
        if origin in (tuple, frozenset, list):
            inner = self._converter(args[0] if args else Any)
            kind: type = origin  # type: ignore[assignment]

            def collection(value: Any) -> Any:
                return kind(None if v is None else inner(v) for v in value)

            return collection
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return functools.partial(self._build, hint)
        return self._any

    def _any(self, value: Any) -> Any:
        if isinstance(value, dict) and value.get("type") in self._classes:
            return self.decode(value)
        return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)
