"""Agent manifests: one TOML file per agent, `agents/<name>.toml` in the profile directory.

The operator writes them; the wallet only reads them. A file that does not parse, or that says
something this reader does not understand, grants nothing at all and says why: a typo must never
widen what an agent may do.

    tools = ["board", "offer", "accept", "status", "deals", "lock", "reveal", "approval"]
    did = "did:key:z6Mk..."          # the agent's key, for calls arriving over a room
    rails = ["memory"]               # rail allow-list (absent: any rail the wallet has)
    max_open_deals = 2

    [caps]                           # minimal units; absent: no cap of that kind
    per_deal = 500000
    per_24h = 1000000
    [caps.assets]                    # rolling 24 h per asset; present: other assets refused
    FLOP = 800000

    [counterparties]
    allow = []                       # empty: anyone not denied
    deny = ["did:key:z6Mk..."]

    [approval]                       # per gated tool: auto (engine gates still apply) | ask
    lock = "auto"
    reveal = "ask"                   # a gated tool not listed here is "ask"
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tclk_tui.agents.catalog import GATED_TOOLS  # the gated commands among the tools

POLICIES = ("auto", "ask")
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
DID_RE = re.compile(r"^did:key:z[1-9A-HJ-NP-Za-km-z]{40,60}$")
_TOP = {"tools", "did", "rails", "max_open_deals", "caps", "counterparties", "approval",
        "description"}


@dataclass(frozen=True)
class Caps:
    per_deal: int | None = None
    per_24h: int | None = None
    assets: dict[str, int] | None = None  # None: no per-asset table


@dataclass(frozen=True)
class Manifest:
    name: str
    path: Path | None = None
    tools: frozenset[str] = frozenset()
    did: str | None = None
    rails: tuple[str, ...] | None = None
    max_open_deals: int | None = None
    caps: Caps = field(default_factory=Caps)
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    approval: dict[str, str] = field(default_factory=dict)
    description: str = ""
    problem: str | None = None  # set: the manifest grants nothing, and this says why

    def policy(self, tool: str) -> str:
        return self.approval.get(tool, "ask")

    def summary(self) -> dict:
        return {
            "name": self.name, "valid": self.problem is None, "problem": self.problem,
            "did": self.did, "tools": sorted(self.tools),
            "rails": list(self.rails) if self.rails is not None else None,
            "max_open_deals": self.max_open_deals,
            "caps": {"per_deal": self.caps.per_deal, "per_24h": self.caps.per_24h,
                     "assets": self.caps.assets},
            "counterparties": {"allow": list(self.allow), "deny": list(self.deny)},
            "approval": {t: self.policy(t) for t in GATED_TOOLS if t in self.tools},
        }


class ManifestError(ValueError):
    pass


def refused(name: str, path: Path | None, why: str) -> Manifest:
    return Manifest(name=name, path=path, problem=why)


def agents_dir(profile_dir: Path) -> Path:
    return Path(profile_dir) / "agents"


def load_manifest(path: Path, known_tools: frozenset[str] | None = None) -> Manifest:
    """The manifest in `path`; on any problem, one that grants nothing and names the problem."""
    name = path.stem
    if not NAME_RE.match(name):
        return refused(name, path, "the file name is not an agent name (a-z, 0-9, _ and -, "
                       "at most 40)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return refused(name, path, f"cannot read it: {exc}")
    except tomllib.TOMLDecodeError as exc:
        return refused(name, path, f"not valid TOML: {exc}")
    except RecursionError:
        return refused(name, path, "not valid TOML: nested too deep")
    try:
        return parse_manifest(name, data, path, known_tools)
    except ManifestError as exc:
        return refused(name, path, str(exc))


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ManifestError(f"{what} is a whole number >= 0")
    return value


def _strings(value: object, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"{what} is a list of strings")
    return tuple(value)


def _dids(value: object, what: str) -> tuple[str, ...]:
    dids = _strings(value, what)
    bad = [d for d in dids if not DID_RE.match(d)]
    if bad:
        raise ManifestError(f"{what} holds something that is not a did:key: {bad[0][:60]!r}")
    return dids


def _table(value: object, what: str) -> dict:
    if not isinstance(value, dict):
        raise ManifestError(f"[{what}] is a table")
    return value


def parse_manifest(name: str, data: dict, path: Path | None = None,
                   known_tools: frozenset[str] | None = None) -> Manifest:
    unknown = sorted(set(data) - _TOP)
    if unknown:
        raise ManifestError(f"unknown key(s): {', '.join(unknown)}")
    tools = frozenset(_strings(data.get("tools", []), "tools"))
    if known_tools is not None and tools - known_tools:
        raise ManifestError(f"no such tool(s): {', '.join(sorted(tools - known_tools))}")
    did = data.get("did")
    if did is not None and (not isinstance(did, str) or not DID_RE.match(did)):
        raise ManifestError("did is a did:key")
    rails = _strings(data["rails"], "rails") if "rails" in data else None
    max_open = _int(data["max_open_deals"], "max_open_deals") if "max_open_deals" in data \
        else None
    caps_t = _table(data.get("caps", {}), "caps")
    unknown = sorted(set(caps_t) - {"per_deal", "per_24h", "assets"})
    if unknown:
        raise ManifestError(f"unknown key(s) in [caps]: {', '.join(unknown)}")
    assets = None
    if "assets" in caps_t:
        assets = {str(k): _int(v, f"caps.assets.{k}")
                  for k, v in _table(caps_t["assets"], "caps.assets").items()}
    caps = Caps(per_deal=_int(caps_t["per_deal"], "caps.per_deal") if "per_deal" in caps_t
                else None,
                per_24h=_int(caps_t["per_24h"], "caps.per_24h") if "per_24h" in caps_t
                else None,
                assets=assets)
    cp = _table(data.get("counterparties", {}), "counterparties")
    unknown = sorted(set(cp) - {"allow", "deny"})
    if unknown:
        raise ManifestError(f"unknown key(s) in [counterparties]: {', '.join(unknown)}")
    approval_t = _table(data.get("approval", {}), "approval")
    approval: dict[str, str] = {}
    for tool, policy in approval_t.items():
        if tool not in GATED_TOOLS:
            raise ManifestError(f"[approval] names {tool!r}, which is not a gated tool "
                                f"({', '.join(GATED_TOOLS)})")
        if policy not in POLICIES:
            raise ManifestError(f"approval.{tool} is auto or ask, not {policy!r}")
        approval[tool] = policy
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ManifestError("description is a string")
    return Manifest(name=name, path=path, tools=tools, did=did, rails=rails,
                    max_open_deals=max_open, caps=caps, allow=_dids(cp.get("allow", []), "allow"),
                    deny=_dids(cp.get("deny", []), "deny"), approval=approval,
                    description=description[:500])


def load_manifests(profile_dir: Path,
                   known_tools: frozenset[str] | None = None) -> dict[str, Manifest]:
    """Every `agents/*.toml` of the profile, valid or not, by agent name."""
    folder = agents_dir(profile_dir)
    if not folder.is_dir():
        return {}
    return {p.stem: load_manifest(p, known_tools) for p in sorted(folder.glob("*.toml"))}


__all__ = ["GATED_TOOLS", "Caps", "Manifest", "agents_dir", "load_manifest", "load_manifests",
           "parse_manifest"]
