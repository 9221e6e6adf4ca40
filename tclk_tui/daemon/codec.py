"""Engine values (events, views, gate requests) as JSON and back, for the control socket.

Values are frozen dataclasses of str/int/bool/None, tuples, frozensets and other such values;
the wire form is a plain object with a `"type"` naming the class, so a subscriber in any
language can read it. Decoding rebuilds the exact value, tuples and frozensets included.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any


def to_wire(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = to_wire(getattr(value, f.name))
        return out
    if isinstance(value, frozenset | set):
        return sorted(to_wire(v) for v in value)
    if isinstance(value, tuple | list):
        return [to_wire(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_wire(v) for k, v in value.items()}
    return value


class Decoder:
    """Rebuilds values of the given dataclasses from their wire form, by their type hints."""

    def __init__(self, *classes: type) -> None:
        self._classes = {c.__name__: c for c in classes}

    def decode(self, obj: Any) -> Any:
        if not isinstance(obj, dict) or obj.get("type") not in self._classes:
            raise ValueError(f"not a known value: {str(obj)[:80]}")
        return self._build(self._classes[obj["type"]], obj)

    def _build(self, cls: type, obj: dict[str, Any]) -> Any:
        hints = _hints(cls)
        kwargs = {}
        for f in dataclasses.fields(cls):
            if f.name in obj:
                kwargs[f.name] = self._convert(hints[f.name], obj[f.name])
        return cls(**kwargs)

    def _convert(self, hint: Any, value: Any) -> Any:
        if value is None:
            return None
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            real = [a for a in args if a is not type(None)]
            if len(real) == 1:
                return self._convert(real[0], value)
            hint = Any
        if origin is tuple:
            inner = args[0] if args else Any
            return tuple(self._convert(inner, v) for v in value)
        if origin is frozenset:
            inner = args[0] if args else Any
            return frozenset(self._convert(inner, v) for v in value)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            return self._build(hint, value)
        if isinstance(value, dict) and value.get("type") in self._classes:
            return self.decode(value)
        return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)
