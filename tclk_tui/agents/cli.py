"""`tclk-tui agents list | show | check | log` and `tclk-tui mcp --agent NAME`.

The manifests are files the operator edits; these commands read them (and the journal's audit
trail) and never change anything. Agent-written text (parameters, reasons) is printed with
control characters made visible, so a log line cannot rewrite the operator's terminal.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

JournalOpener = Callable[[], Any]


def visible(text: str) -> str:
    """Untrusted text for a terminal: control characters shown as escapes, never obeyed."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))


def add_parsers(sub, common: argparse.ArgumentParser, handler) -> None:
    """The `agents` and `mcp` subcommands; `handler(args)` is the CLI's dispatcher."""
    p = sub.add_parser("agents", parents=[common],
                       help="the agents allowed to drive this wallet (manifests, audit trail)")
    p.set_defaults(handler=handler)
    asub = p.add_subparsers(dest="agents_command", required=True)
    asub.add_parser("list", parents=[common], help="every manifest and whether it is valid")
    s = asub.add_parser("show", parents=[common], help="one agent's grant, caps and use")
    s.add_argument("name")
    c = asub.add_parser("check", parents=[common], help="check manifests (exit 1 on a problem)")
    c.add_argument("name", nargs="?")
    lg = asub.add_parser("log", parents=[common], help="the agents' calls, newest first")
    lg.add_argument("name", nargs="?")
    lg.add_argument("--limit", type=int, default=50)
    asub.add_parser("pending", parents=[common],
                    help="approvals waiting for the operator (asks the running wallet)")
    ap = asub.add_parser("approve", parents=[common],
                         help="approve a pending call; the engine re-checks everything")
    ap.add_argument("approval")
    ap.add_argument("--code", metavar="HEX4",
                    help="a reveal's code: the first 4 hex of the contract id")
    ap.add_argument("--late", action="store_true", help="acknowledge a reveal past claimByMs")
    dn = asub.add_parser("deny", parents=[common], help="deny a pending call, with a reason")
    dn.add_argument("approval")
    dn.add_argument("--reason", default="", help="sent to the agent as its answer")
    m = sub.add_parser("mcp", parents=[common],
                       help="serve one agent's tools over MCP on stdio (attaches to the "
                            "profile's running wallet)")
    m.set_defaults(handler=handler, agents_command="mcp")
    m.add_argument("--agent", required=True)


def run(args: argparse.Namespace, profile_dir: Path, open_journal: JournalOpener,
        emit: Callable[[argparse.Namespace, str, Any], None]) -> int:
    # Imported here: building the CLI's parser must stay cheap for every other subcommand.
    from tclk_tui.agents.catalog import TOOL_NAMES
    from tclk_tui.agents.limits import DAY_MS
    from tclk_tui.agents.manifest import agents_dir, load_manifest, load_manifests

    command = args.agents_command
    if command == "list":
        manifests = load_manifests(profile_dir, TOOL_NAMES)
        rows = [m.summary() for m in manifests.values()]
        lines = [f"{m.name:<20} {'ok ' if m.problem is None else 'BAD'} "
                 f"{len(m.tools):>2} tools  {m.did or '-'}"
                 + (f"\n    {visible(m.problem)}" if m.problem else "")
                 for m in manifests.values()]
        emit(args, "\n".join(lines) or f"no manifests in {agents_dir(profile_dir)}",
             {"agents": rows})
        return 0
    if command == "check":
        manifests = load_manifests(profile_dir, TOOL_NAMES)
        if args.name:
            manifests = {args.name: load_manifest(agents_dir(profile_dir) / f"{args.name}.toml",
                                                  TOOL_NAMES)}
        bad = {n: m.problem for n, m in manifests.items() if m.problem}
        everyone = load_manifests(profile_dir, TOOL_NAMES).values()
        for name, m in manifests.items():
            twins = sorted(o.name for o in everyone
                           if o.name != name and m.did and o.did == m.did and not o.problem)
            if twins and name not in bad:
                bad[name] = (f"its did is also {', '.join(twins)}'s: a caller over a room "
                             "cannot be told apart, so neither is served there")
        lines = [f"{n}: {visible(bad[n]) if n in bad else 'ok'}" for n in manifests]
        emit(args, "\n".join(lines) or "no manifests", {"problems": bad,
                                                        "checked": sorted(manifests)})
        return 1 if bad else 0
    if command == "show":
        manifest = load_manifest(agents_dir(profile_dir) / f"{args.name}.toml", TOOL_NAMES)
        info = manifest.summary()
        journal = open_journal()
        try:
            since = int(time.time() * 1000) - DAY_MS
            info["spent_24h"] = journal.agents.spent(args.name, since_ms=since)
            info["pending_approvals"] = [a.id for a in journal.agents.approvals("pending")
                                         if a.agent == args.name]
            info["wallet_mailbox"] = journal.settings.get("agents.mailbox")
        finally:
            journal.close()
        lines = [f"agent {manifest.name}: "
                 + ("valid" if manifest.problem is None else visible(manifest.problem)),
                 f"did: {manifest.did or '-'}", f"tools: {', '.join(sorted(manifest.tools))}",
                 f"rails: {', '.join(manifest.rails) if manifest.rails is not None else 'any'}",
                 f"caps: per deal {manifest.caps.per_deal}, per 24 h {manifest.caps.per_24h}, "
                 f"assets {manifest.caps.assets}",
                 f"spent in the last 24 h: {info['spent_24h']}",
                 f"approval: {info['approval']}",
                 f"pending approvals: {', '.join(info['pending_approvals']) or 'none'}",
                 f"the wallet's mailbox (JSON-RPC and MCP over a room): "
                 f"{info['wallet_mailbox'] or 'not opened yet'}"]
        emit(args, "\n".join(lines), info)
        return 0 if manifest.problem is None else 1
    if command == "log":
        journal = open_journal()
        try:
            calls = journal.agents.calls(args.name, limit=max(1, args.limit))
        finally:
            journal.close()
        rows = [{"id": c.id, "agent": c.agent, "transport": c.transport, "tool": c.tool,
                 "params": c.params, "decision": c.decision, "result": c.result_kind,
                 "detail": c.detail, "deal": c.deal_id, "ts_ms": c.ts_ms} for c in calls]
        lines = [f"{c.ts_ms} {visible(c.agent):<14} {c.transport:<10} {c.tool:<9} "
                 f"{c.decision:<8} {c.result_kind:<10} "
                 f"{visible(json.dumps(c.params, sort_keys=True))}"
                 + (f" — {visible(c.detail)}" if c.detail else "") for c in calls]
        emit(args, "\n".join(lines) or "no agent calls yet", {"calls": rows})
        return 0
    if command in ("pending", "approve", "deny"):
        return _operator(args, profile_dir, emit)
    raise ValueError(f"unknown agents command {command}")


def _operator(args: argparse.Namespace, profile_dir: Path,
              emit: Callable[[argparse.Namespace, str, Any], None]) -> int:
    """Answer approvals in the process that owns the wallet (a daemon or the app)."""
    from tclk_tui.daemon.client import try_connect
    from tclk_tui.daemon.wire import RpcError

    client = try_connect(profile_dir, timeout_s=120.0)
    if client is None:
        raise OSError(f"no wallet is running for profile {profile_dir.name}: approvals are "
                      "answered where the engine runs (the app's Approvals pane, or start "
                      "`tclk-tui daemon`)")
    try:
        if args.agents_command == "pending":
            rows = client.call("agents.pending")["approvals"]
            lines = [f"{r['approval']}  {visible(r['agent']):<14} {r['tool']:<8} "
                     f"{visible(r['deal'] or '-')[:20]}" for r in rows]
            emit(args, "\n".join(lines) or "no approvals pending", {"approvals": rows})
            return 0
        try:
            if args.agents_command == "approve":
                row = client.call("agents.approve", {"approval": args.approval,
                                                     "code": args.code, "late": args.late})
            else:
                row = client.call("agents.deny", {"approval": args.approval,
                                                  "reason": args.reason})
        except RpcError as exc:
            print(f"tclk-tui: refused: {visible(exc.message)}", file=sys.stderr)
            return 1
        emit(args, f"{row['approval']}: {row['state']}"
             + (f" ({visible(row['reason'])})" if row["reason"] else ""), row)
        return 0 if row["state"] in ("approved", "denied") else 1
    finally:
        client.close()


__all__ = ["add_parsers", "run", "visible"]
