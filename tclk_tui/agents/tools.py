"""The tool registry: a tool is (name, description, run), and a grant decides who may call it.

`ToolRegistry.call` checks the grant first, before it looks a tool up or runs anything, so no
transport, engine or journal is touched by a call the manifest does not allow. The same
registry fronts every transport (in-process, MCP over stdio, JSON-RPC over a room).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tclk_tui.agents.errors import BadParams, CapabilityViolation, UnknownTool
from tclk_tui.engine.commands import Param

MAX_TEXT = 512  # longest string parameter an agent may pass


class Grant(Protocol):
    """What the registry needs from a manifest: the tool names it grants, and its problem."""

    @property
    def tools(self) -> frozenset[str]: ...

    @property
    def problem(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call as the tool's `run` sees it: who asked, under which grant, with what."""

    agent: str
    manifest: Any
    tool: str
    params: Mapping[str, Any]
    transport: str = "in-process"
    wait_s: float = 0.0


Run = Callable[[ToolCall], Awaitable[dict[str, Any]] | dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the registry holds it. `params` are the registry's own declarations (the
    command's, as `catalog` spells them for an agent): a tool declares none of its own."""

    name: str
    description: str
    run: Run = field(repr=False)
    params: tuple[Param, ...] = ()
    gated: bool = False

    def json_schema(self) -> dict[str, Any]:
        """The command's params as JSON Schema, every text capped at MAX_TEXT for an agent."""
        props: dict[str, Any] = {}
        for p in self.params:
            prop = p.json_schema()
            if p.base is str:
                prop["maxLength"] = MAX_TEXT
            elif p.base is list:
                prop["items"]["maxLength"] = MAX_TEXT
            props[p.name] = prop
        schema: dict[str, Any] = {"type": "object", "properties": props,
                                  "additionalProperties": False}
        required = [p.name for p in self.params if p.required]
        if required:
            schema["required"] = required
        return schema

    @property
    def param_names(self) -> frozenset[str]:
        return frozenset(p.name for p in self.params)

    def check_params(self, params: object) -> dict[str, Any]:
        """The parameters as the schema allows them, or BadParams saying which one is wrong."""
        if params is None:
            params = {}
        if not isinstance(params, Mapping):
            raise BadParams("parameters are an object")
        known = {p.name: p for p in self.params}
        extra = sorted(str(k)[:40] for k in params if k not in known)
        if extra:
            raise BadParams(f"unknown parameter(s) for {self.name}: {', '.join(extra)}")
        out: dict[str, Any] = {}
        for p in self.params:
            if p.name not in params or params[p.name] is None:
                if p.required:
                    raise BadParams(f"{self.name} needs {p.name}")
                continue
            value = params[p.name]
            if not _fits(p, value):
                what = _JSON_TYPES[p.base]
                raise BadParams(f"{p.name} is a{'n' if what[0] in 'aeiou' else ''} {what}"
                                + (f" of at most {MAX_TEXT} characters" if p.base is str
                                   else ""))
            items = value if p.base is list else [value]
            if p.choices and any(v not in p.choices for v in items):
                raise BadParams(f"{p.name} is one of {', '.join(p.choices)}")
            out[p.name] = value
        return out


_JSON_TYPES = {str: "string", int: "integer", bool: "boolean", list: "array of strings"}


def _fits(param: Param, value: object) -> bool:
    """`value` has the param's type, within an agent's text limit (the registry's check, plus
    MAX_TEXT: a face for strangers' and agents' calls caps what a string may cost)."""
    base = param.base
    if base is str:
        return isinstance(value, str) and len(value) <= MAX_TEXT
    if base is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if base is bool:
        return isinstance(value, bool)
    return isinstance(value, list) and all(isinstance(v, str) and len(v) <= MAX_TEXT
                                           for v in value)


class ToolRegistry:
    """Tools by name; `call` enforces the grant before anything else."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolSpec] = {}

    def register(self, name: str, description: str, run: Run, *,
                 params: Sequence[Param] = (), gated: bool = False) -> ToolSpec:
        """A tool; `params` are registry declarations (`catalog` reads them off a command)."""
        if name in self._tools:
            raise ValueError(f"tool {name} is registered already")
        spec = ToolSpec(name, description, run, tuple(params), gated)
        self._tools[name] = spec
        return spec

    def names(self) -> list[str]:
        return list(self._tools)

    def spec(self, name: str) -> ToolSpec:
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownTool(f"no tool named {name[:60]!r} is registered") from None

    @staticmethod
    def check_grant(agent: str, manifest: Grant, tool: str) -> None:
        if manifest.problem:
            raise CapabilityViolation(f"agent {agent} has no valid manifest: {manifest.problem}")
        if tool not in manifest.tools:
            raise CapabilityViolation(f"agent {agent} is not granted the tool {tool[:60]!r}")

    def granted(self, manifest: Grant) -> list[ToolSpec]:
        """The registered tools the manifest grants, in registration order."""
        if manifest.problem:
            return []
        return [spec for name, spec in self._tools.items() if name in manifest.tools]

    def describe(self, manifest: Grant) -> str:
        """The granted tools' descriptions, for an agent's prompt (AVAILABLE TOOLS)."""
        lines = [f"- {spec.name}: {spec.description}" for spec in self.granted(manifest)]
        return "AVAILABLE TOOLS\n" + ("\n".join(lines) if lines else "(none)")

    async def call(self, agent: str, manifest: Grant, tool: str, params: object = None, *,
                   transport: str = "in-process", wait_s: float = 0.0) -> dict[str, Any]:
        self.check_grant(agent, manifest, tool)  # first: nothing is touched on a denied call
        spec = self.spec(tool)
        checked = spec.check_params(params)
        result = spec.run(ToolCall(agent, manifest, tool, checked, transport, wait_s))
        if inspect.isawaitable(result):
            result = await result
        return result


__all__ = ["MAX_TEXT", "Grant", "ToolCall", "ToolRegistry", "ToolSpec"]
