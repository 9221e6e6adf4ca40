"""What the journal keeps about agents: their calls, what they spent, the operator's approvals.

Spend is kept here (not in memory) so a restart never resets a rolling cap; approvals are kept
here so a pending question to the operator outlives the process that asked it. Parameters are
the agent's own (public) words; the guards refuse anything shaped like a secret.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tclk_tui.store.errors import StoreError
from tclk_tui.store.guards import terms_to_json

if TYPE_CHECKING:
    from tclk_tui.store.journal import Journal

APPROVAL_STATES = ("pending", "approved", "denied", "lapsed", "failed")
MAX_DETAIL = 2000
CALLER_SETTING = "agents.caller."  # + the caller's DID: its last nonce and latest request ids
KEPT_REQUEST_IDS = 256
NEW_REPLY_ROOMS_A_DAY = 2  # a caller answers from one mailbox; the venue gives a wallet 20
KEPT_ROOMS = 16  # reply rooms remembered per caller (answering there again costs no new room)
DAY_MS = 24 * 3600 * 1000


@dataclass(frozen=True, slots=True)
class AgentCallRow:
    id: int
    agent: str
    transport: str
    tool: str
    params: dict[str, Any]
    decision: str  # allowed | refused | pending | approved | denied | lapsed
    result_kind: str  # ok | error | pending | refused
    detail: str
    deal_id: str | None
    ts_ms: int


@dataclass(frozen=True, slots=True)
class ApprovalRow:
    id: str
    agent: str
    tool: str
    params: dict[str, Any]
    deal_id: str | None
    facts: dict[str, Any]
    facts_digest: str
    state: str
    reason: str
    result: dict[str, Any] | None
    created_ms: int
    decided_ms: int | None


def _json(value: dict[str, Any], what: str) -> str:
    try:
        return terms_to_json(value)
    except StoreError as exc:
        raise StoreError(f"{what}: {exc}") from None


class AgentLedger:
    """The agents' tables of one journal (migration 2)."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal

    # -- the audit trail ------------------------------------------------------------------------

    def add_call(self, *, agent: str, transport: str, tool: str, params: dict[str, Any],
                 decision: str, result_kind: str, detail: str = "",
                 deal_id: str | None = None, durable: bool = True) -> int:
        """One audit row. `durable=False` is for a call that changed nothing (a read, a
        refusal): its row commits without waiting for the disk (WAL, synchronous NORMAL: it
        can be lost to a power cut, never half-written), so a read costs no fsync."""
        j = self._journal
        with self._tx(durable) as conn:
            cur = conn.execute(
                "INSERT INTO agent_calls (agent, transport, tool, params_json, decision, "
                "result_kind, detail, deal_id, ts_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (agent[:200], transport[:40], tool[:80], _json(params, "tool parameters"),
                 decision, result_kind, detail[:MAX_DETAIL], deal_id, j._now()))
            return int(cur.lastrowid or 0)

    def calls(self, agent: str | None = None, *, deal_id: str | None = None,
              limit: int = 200) -> list[AgentCallRow]:
        sql = ("SELECT id, agent, transport, tool, params_json, decision, result_kind, detail, "
               "deal_id, ts_ms FROM agent_calls")
        where, args = [], []
        if agent is not None:
            where.append("agent = ?")
            args.append(agent)
        if deal_id is not None:
            where.append("deal_id = ?")
            args.append(deal_id)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC LIMIT ?"
        rows = self._journal._all(sql, (*args, int(limit)))
        return [AgentCallRow(r[0], r[1], r[2], r[3], json.loads(r[4]), *r[5:]) for r in rows]

    @contextlib.contextmanager
    def _tx(self, durable: bool) -> Iterator[Any]:
        j = self._journal
        if durable:
            with j._tx() as conn:
                yield conn
            return
        with j._lock:
            conn = j._live()
            conn.execute("PRAGMA synchronous = NORMAL")
            try:
                with j._tx() as inner:
                    yield inner
            finally:
                conn.execute("PRAGMA synchronous = FULL")

    # -- spend ----------------------------------------------------------------------------------

    def spend_once(self, *, agent: str, deal_id: str, asset: str, amount: int) -> bool:
        """Account a deal's amount to the agent, once per deal; False if already accounted."""
        j = self._journal
        with j._tx() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO agent_spend (agent, deal_id, asset, amount, ts_ms) "
                "VALUES (?, ?, ?, ?, ?)", (agent, deal_id, asset, str(int(amount)), j._now()))
            return cur.rowcount == 1

    def spent(self, agent: str, *, since_ms: int, asset: str | None = None,
              besides: str | None = None) -> int:
        """The agent's accounted spend since `since_ms` (of `asset`), less deal `besides`."""
        sql = "SELECT amount FROM agent_spend WHERE agent = ? AND ts_ms > ?"
        args: tuple[Any, ...] = (agent, int(since_ms))
        if asset is not None:
            sql += " AND asset = ?"
            args = (*args, asset)
        if besides is not None:
            sql += " AND deal_id != ?"
            args = (*args, besides)
        return sum(int(r[0]) for r in self._journal._all(sql, args))

    def accounted(self, agent: str, deal_id: str) -> bool:
        return self._journal._one("SELECT 1 FROM agent_spend WHERE agent = ? AND deal_id = ?",
                                  (agent, deal_id)) is not None

    def deals_of(self, agent: str) -> list[str]:
        """Deals this agent entered (offered or accepted), oldest first."""
        rows = self._journal._all(
            "SELECT DISTINCT deal_id FROM agent_calls WHERE agent = ? AND deal_id IS NOT NULL "
            "AND tool IN ('offer', 'accept') AND result_kind = 'ok' ORDER BY deal_id", (agent,))
        return [r[0] for r in rows]

    # -- requests over a room: at most once, ever ------------------------------------------------

    def _caller(self, did: str) -> dict[str, Any]:
        raw = self._journal.get_setting(CALLER_SETTING + did)
        try:
            found = json.loads(raw) if raw else {}
        except ValueError:
            found = {}
        return found if isinstance(found, dict) else {}

    def take_request(self, did: str, nonce: int | None, req_id: str | None,
                     reply_room: str | None = None) -> str:
        """Take a caller's signed request, in one write: `replay` when its nonce is not above
        the highest one taken from that caller (nothing changes), else the nonce is taken and
        it is `used` when that caller's request id is among its latest `KEPT_REQUEST_IDS`
        already, `new` (and recorded) otherwise. The venue keeps the nonce rule only while a
        record is in its nonce tail; the journal keeps it for ever, in one row per caller.

        `reply_room` is where the answer goes: a room the wallet has not answered this caller
        in may be a new room on the venue, which counts against the wallet's own new rooms a
        day, so a caller gets at most `NEW_REPLY_ROOMS_A_DAY` of them (`rooms`: nothing is
        taken, the request is not run)."""
        caller = self._caller(did)
        last = caller.get("nonce")
        if nonce is None or (isinstance(last, int) and nonce <= last):
            return "replay"
        if reply_room is not None:
            now = self._journal._now()
            rooms = {r: t for r, t in (caller.get("rooms") or {}).items()
                     if isinstance(r, str) and isinstance(t, int)}
            if reply_room not in rooms:
                if sum(now - t < DAY_MS for t in rooms.values()) >= NEW_REPLY_ROOMS_A_DAY:
                    return "rooms"
                rooms[reply_room] = now
                caller["rooms"] = dict(sorted(rooms.items(), key=lambda kv: kv[1])[-KEPT_ROOMS:])
        caller["nonce"] = nonce
        ids = [i for i in caller.get("ids", []) if isinstance(i, str)]
        used = req_id is not None and req_id in ids
        if req_id is not None and not used:
            ids = [*ids, req_id][-KEPT_REQUEST_IDS:]
        caller["ids"] = ids
        self._journal.set_setting(CALLER_SETTING + did, json.dumps(caller, sort_keys=True))
        return "used" if used else "new"

    def request_id_used(self, did: str, req_id: str) -> bool:
        return req_id in self._caller(did).get("ids", [])

    # -- approvals ------------------------------------------------------------------------------

    def add_approval(self, *, approval_id: str, agent: str, tool: str, params: dict[str, Any],
                     deal_id: str | None, facts: dict[str, Any], facts_digest: str) -> ApprovalRow:
        j = self._journal
        with j._tx() as conn:
            conn.execute(
                "INSERT INTO agent_approvals (id, agent, tool, params_json, deal_id, facts_json, "
                "facts_digest, state, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
                (approval_id, agent, tool, _json(params, "tool parameters"), deal_id,
                 _json(facts, "gate facts"), facts_digest, j._now()))
        row = self.approval(approval_id)
        assert row is not None
        return row

    def approval(self, approval_id: str) -> ApprovalRow | None:
        rows = self._approvals("WHERE id = ?", (approval_id,))
        return rows[0] if rows else None

    def approvals(self, state: str | None = None, *, limit: int = 200) -> list[ApprovalRow]:
        if state is None:
            return self._approvals("ORDER BY created_ms DESC, id LIMIT ?", (limit,))
        return self._approvals("WHERE state = ? ORDER BY created_ms, id LIMIT ?", (state, limit))

    def decide(self, approval_id: str, state: str, *, reason: str = "",
               result: dict[str, Any] | None = None) -> ApprovalRow:
        """Move a pending approval to its outcome; an approval is decided once."""
        if state not in APPROVAL_STATES or state == "pending":
            raise StoreError(f"not an approval outcome: {state!r}")
        j = self._journal
        with j._tx() as conn:
            cur = conn.execute(
                "UPDATE agent_approvals SET state = ?, reason = ?, result_json = ?, "
                "decided_ms = ? WHERE id = ? AND state = 'pending'",
                (state, reason[:MAX_DETAIL],
                 _json(result, "approval result") if result is not None else None,
                 j._now(), approval_id))
            if cur.rowcount != 1:
                raise StoreError(f"approval {approval_id} is not pending")
        row = self.approval(approval_id)
        assert row is not None
        return row

    def _approvals(self, clause: str, args: tuple[Any, ...]) -> list[ApprovalRow]:
        sql = ("SELECT id, agent, tool, params_json, deal_id, facts_json, facts_digest, state, "
               "reason, result_json, created_ms, decided_ms FROM agent_approvals ")
        rows = self._journal._all(sql + clause, args)
        return [ApprovalRow(r[0], r[1], r[2], json.loads(r[3]), r[4], json.loads(r[5]), r[6],
                            r[7], r[8], json.loads(r[9]) if r[9] else None, r[10], r[11])
                for r in rows]


__all__ = ["APPROVAL_STATES", "AgentCallRow", "AgentLedger", "ApprovalRow"]
