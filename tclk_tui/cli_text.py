"""How each command's answer reads for a person on a terminal.

The CLI prints a command's JSON answer as is with `--json`; without it, the function here named
for the command turns the same answer into lines. Built from the answer alone (never from the
engine's objects), so the text is the same whether the answer came from a daemon or from an
engine opened in-process. Much of it was written by strangers (venue records, notes, reasons):
the CLI neutralises every line it prints (`cli.say`), so nothing here needs to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tclk_tui.engine.words import plain_words, plural

Answer = Mapping[str, Any]


def fact_lines(gate: Answer) -> list[str]:
    """A gate's facts and blockers, one per line, as the engine stated them."""
    lines = []
    for fact in gate.get("facts", []):
        mark = {True: "ok", False: "NO", None: "note"}[fact["ok"]]
        lines.append(f"  [{mark}] {plain_words(fact['label'])}: {plain_words(fact['detail'])}")
    lines += [f"  refused: {plain_words(b)}" for b in gate.get("blockers", [])]
    return lines


def _money(a: Answer) -> str:
    """The amount as the engine said it reads (`0.25 ETH`), or as it came."""
    return a.get("amount_text") or f"{a['amount']} {a['asset']}"


def identity(a: Answer) -> str:
    lines = [a["did"], f"profile {a['profile']} on {a['venue']}"]
    evm = a.get("evm")
    if evm:
        lines.append(f"evm-htlc account {evm['address']} on chain {evm['chain_id']} "
                     f"(fund this address to lock)")
        if evm.get("error"):
            lines.append(f"  balance not read: {evm['error']}")
        for held in evm.get("balances", []):
            lines.append(f"  {held['text']}")
    return "\n".join(lines)


def board(a: Answer) -> str:
    lines = [f"{o['offer'][:18]}  {o['status']:<9} {o['role']:<5} {_money(o):>20} "
             f"{o['lock']:<5} {','.join(o['rails'])}"
             for o in a["offers"]]
    hidden = a.get("total", len(a["offers"])) - len(a["offers"])
    if hidden > 0:
        lines.append(f"({hidden} more not shown: raise --limit)")
    rejected = a.get("rejected") or {}
    if rejected:
        lines.append(f"({plural(sum(rejected.values()), 'rejected line')} not shown)")
    return "\n".join(lines) or "no open offers"


def offer(a: Answer) -> str:
    return f"offer {a['deal']} posted"


def accept(a: Answer) -> str:
    return f"accepted {a['deal']}; contract {a['contract']}"


def _performed(action: str) -> Callable[[Answer], str]:
    def text(a: Answer) -> str:
        return f"{action}: {a['deal']} is now {a['status']}"

    return text


def status(a: Answer) -> str:
    lines = [f"deal {a['deal']}", f"contract {a['contract']}",
             f"{a['role']} · {a['status']} · {_money(a)} · {a['lock']} lock",
             f"actions: {', '.join(a['actions']) or 'none'}"]
    if a.get("disagreement"):
        lines.insert(3, f"UNKNOWN: {a['disagreement']}; `tclk-tui reconcile {a['deal'][:12]}` "
                        "re-reads the rail and re-folds")
    if a.get("accepted_by"):
        lines.append(f"accepted by: {a['accepted_by']}")
    lines += [f"refused accept from {r['from']}: {r['reason']}"
              for r in a.get("refused_accepts", [])]
    if a.get("note"):
        lines.append(f"note from the counterparty: {a['note']}")
    lines += [f"  #{r['seq']} {'ok ' if r['ok'] else 'REJ'} {r['summary']}"
              + (f" ({r['reason']})" if r["reason"] else "") for r in a["records"]]
    return "\n".join(lines)


def deals(a: Answer) -> str:
    return "\n".join(f"{d['deal'][:18]}  {d['role']:<5} {d['status']:<9} {_money(d)}"
                     for d in a["deals"]) or "no deals"


def heartbeat(a: Answer) -> str:
    return f"heartbeat posted in {a['deal']} ({a['status']})"


def receipt(a: Answer) -> str:
    return f"receipt posted for {a['deal']}: {a['status']}"


def rails(a: Answer) -> str:
    lines = [f"{r['id']:<10} {'moves value' if r['moves_value'] else 'rehearsal':<12} "
             f"{r['describe']}" for r in a["rails"]] or ["no rails set up"]
    lines += [f"{rail_id:<10} {'not here':<12} {why}"
              for rail_id, why in a.get("set_aside", {}).items()]
    return "\n".join(lines)


def tally(a: Answer) -> str:
    lines = [f"contract {a['contract']}: {plural(len(a['commits']), 'commitment')}, "
             f"{len(a['reveals'])} opened"]
    lines += [f"  {votes:>3}  {verdict}" for verdict, votes in a["counts"].items()]
    lines += [f"problem: {p}" for p in a["problems"]]
    return "\n".join(lines)


def audit(a: Answer) -> str:
    lines = [f"{plural(a['records'], 'record')} in {plural(len(a['files']), 'file')}, "
             f"{a.get('forged', a['unverified'])} forged (signed, failing verification), "
             f"{a.get('unsigned', 0)} unsigned (ignored)",
             "audit: " + ("passed" if a.get("ok", True) else "FAILED (see the problems)")]
    lines += [f"problem: {p}" for p in a["problems"]]
    for c in a["contracts"]:
        lines.append(f"contract {c['contract']}: {c['status']}")
        for s in c["steps"]:
            lines.append(f"  {'ok ' if s['ok'] else 'REJ'} {s['room']} #{s['seq']} "
                         f"{s['type'] or '-'}"
                         + (f": {s['reason']}" if s["reason"] else ""))
        if c.get("round"):
            lines += round_lines(c["round"])
    for b in a.get("bundles", []):
        lines += bundle_lines(b)
    if not a["contracts"] and not a.get("bundles"):
        lines.append("no authenticated handshake found")
    return "\n".join(lines)


def round_lines(r: Answer) -> list[str]:
    counts = ", ".join(f"{v}: {n}" for v, n in r["counts"].items()) or "no opened votes"
    lines = [f"  vote round of {plural(len(r['jurors']), 'juror')} (commitments due before "
             f"{r['deadline_ms']} ms): {counts}"]
    for j in r["jurors"]:
        state = (f"opened {j['verdict']!r}" if j["opened"] else
                 "committed, not opened" if j["committed"] else "no commitment")
        lines.append(f"    juror {j['index'] + 1} {j['did']}: {state}"
                     + "".join(f" [{flag}]" for flag in j["flags"]))
    lines += [f"    round problem: {p}" for p in r["problems"]]
    return lines


def bundle_lines(b: Answer) -> list[str]:
    lines = [f"evidence bundle {b['file']}: contract {b['contract']}: {b['status']} "
             f"({plural(b['records'], 'record')}, {b['unverified']} failed verification)"]
    lines += [f"  problem: {p}" for p in b["problems"]]
    if b.get("round"):
        lines += round_lines(b["round"])
    lines += [f"  proves: {p}" for p in b["proves"]]
    lines += [f"  does not prove: {p}" for p in b["does_not_prove"]]
    return lines


# One per registry command; a command missing here prints its JSON answer.
TEXT: Mapping[str, Callable[[Answer], str]] = {
    "identity": identity, "board": board, "offer": offer, "accept": accept,
    "lock": _performed("lock"), "reveal": _performed("reveal"),
    "refund": _performed("refund"), "cancel": _performed("cancel"), "status": status,
    "deals": deals, "heartbeat": heartbeat, "receipt": receipt, "rails": rails, "tally": tally,
    "audit": audit, "reconcile": status,
}
