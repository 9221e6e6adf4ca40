"""One deal's evidence in one file: the signed records of both rooms, the fold's steps, what the
rail said, and the panel's vote round, re-verifiable offline with `tclk-tui audit`.

The records come from this wallet's journal and its deal (so they outlive the venue's ring),
with any sealed private accept kept as the signed record it is. The bundle's own claims (status,
steps, rail facts) are checked against the records by the audit, never taken on trust; the rail
facts cannot be re-checked offline and the audit says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from tclk_tui.engine.audit import panel_round, round_problems
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.panel import check_statement
from tclk_tui.protocol.side_lines import is_statement_line, is_vote_line, try_parse_statement
from tclk_tui.protocol.transcript import (
    FoldStep,
    TranscriptRecord,
    fold_transcript,
    verify_transcript_record,
)

if TYPE_CHECKING:
    from tclk_tui.engine.wallet import Wallet

FORMAT = "tclk-evidence/1"
MAX_RECORDS = 50_000

PROVES = (
    "each listed record was signed by the did:key it names, over its room, nonce and text",
    "folding those records under tclk/1 gives the status shown (the venue's timestamps, as "
    "kept in this file, judge the deadlines)",
    "which statement the contract commits to, and whether the offer's panel signed it",
    "who of the panel committed and opened which vote, and which openings do not match",
)
DOES_NOT_PROVE = (
    "that the rail holds or paid the money: the rail facts are what its maker's wallet read "
    "from the rail, and only the rail itself can confirm them",
    "that no other record exists: a venue room is a ring, and the file holds what was kept",
    "that the work was delivered or any good, or that a juror judged honestly",
)


def _record(record: TranscriptRecord) -> dict[str, Any]:
    return asdict(record)


async def build_bundle(wallet: Wallet, deal_id: str) -> dict[str, Any]:
    """The evidence of one of our deals (or a case we referee), as a JSON-safe dict."""
    deal = wallet.deal(deal_id)
    contract = deal.state.contract
    board = deal.board_transcript()  # the offer, the accept it is bound to, the rest
    statements = [r for r in wallet.evidence.records(OFFER_ROOM)
                  if (line := try_parse_statement(r.line)) is not None
                  and line.offer_id == deal.deal_id]
    room_records = list(deal.room_records)
    if contract is not None:
        kept = {(r.seq, r.line) for r in room_records}
        room_records += [r for r in wallet.evidence.records(deal_room(contract))
                         if (r.seq, r.line) not in kept and is_vote_line(r.line)]
        room_records.sort(key=lambda r: r.seq)
    rail: dict[str, Any] | None = None
    state = deal.state
    if state.rail and state.rail_ref:
        rail_obj = wallet.rails.get(state.rail)
        status = None
        if rail_obj is not None:
            try:
                status = await rail_obj.lock_status(state.rail_ref)
            except Exception as exc:  # the rail's silence is recorded as such
                status = f"unreadable: {exc}"
        rail = {"id": state.rail, "ref": state.rail_ref, "status": status,
                "read_ms": wallet.now_ms(), "read_by": wallet.did}
    rooms: dict[str, list[dict[str, Any]]] = {
        OFFER_ROOM: [_record(r) for r in [*board, *statements]]}
    if contract is not None:
        rooms[deal_room(contract)] = [_record(r) for r in room_records]
    fold = fold_transcript([*board, *room_records])
    round_ = panel_round(deal.offer, contract, room_records) if contract else None
    return {
        "format": FORMAT, "deal": deal.deal_id, "contract": contract,
        "status": fold.state.status if fold.state else None,
        "rooms": rooms,
        "fold": _steps(fold.steps),
        "rail": rail, "round": round_.to_dict() if round_ is not None else None,
        "made_by": wallet.did, "made_ms": wallet.now_ms(),
    }


def _steps(steps: Iterable[FoldStep]) -> list[dict[str, Any]]:
    """A fold's steps as a bundle claims them (and the audit re-folds them)."""
    return [{"room": s.room, "seq": s.seq, "type": s.type, "ok": s.ok, "reason": s.reason}
            for s in steps]


def read_bundle(text: str) -> dict[str, Any] | None:
    """The bundle in a file's text, or None when the text is something else (an export)."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None  # JSONL of more than one record, or not JSON: not a bundle
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


def audit_bundle(name: str, data: dict[str, Any]) -> dict[str, Any]:
    """Re-verify a bundle from its records alone; the answer says what that proves."""
    out: dict[str, Any] = {"file": name, "contract": None, "status": "unreadable",
                           "records": 0, "unverified": 0, "problems": [], "round": None,
                           "proves": list(PROVES), "does_not_prove": list(DOES_NOT_PROVE)}
    try:
        rooms = data["rooms"]
        board = [TranscriptRecord(**r) for r in rooms[OFFER_ROOM]]
        if len(board) + sum(len(v) for v in rooms.values()) > MAX_RECORDS:
            raise ValueError("too many records")
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        out["problems"].append(f"unreadable bundle: {exc}")
        return out
    contract = data.get("contract")
    out["contract"] = contract
    room: list[TranscriptRecord] = []
    if isinstance(contract, str):
        try:
            room = [TranscriptRecord(**r) for r in rooms.get(deal_room(contract), [])]
        except (TclkError, TypeError) as exc:
            out["problems"].append(f"unreadable deal room records: {exc}")
    everything = [*board, *room]
    out["records"] = len(everything)
    for record in everything:  # a bundle holds only signed records: any failure is forged
        verdict = verify_transcript_record(record)
        if not verdict.ok:
            out["unverified"] += 1
            out["problems"].append(f"{record.room} #{record.seq}: {verdict.reason}")
    frames = [r for r in board if not is_statement_line(r.line)]
    fold = fold_transcript([*frames, *room])
    if fold.state is None:
        out["problems"].append("the records open no contract")
        return out
    out["status"] = fold.state.status
    if fold.state.contract != contract:
        out["problems"].append("the records make another contract than the bundle names")
    if data.get("deal") != fold.state.offer["id"]:
        out["problems"].append(f"the bundle claims deal {str(data.get('deal'))[:20]!r}; its "
                               f"records make offer {fold.state.offer['id'][:20]}")
    if data.get("status") != fold.state.status:
        out["problems"].append(f"the bundle claims {data.get('status')!r}; its records fold "
                               f"to {fold.state.status!r}")
    steps = _steps(fold.steps)
    claimed = data.get("fold")
    if claimed != steps:
        at = next((i for i, (a, b) in enumerate(zip(claimed or [], steps, strict=False))
                   if a != b), min(len(claimed) if isinstance(claimed, list) else 0, len(steps)))
        out["problems"].append(f"the bundle's fold steps differ from what its records re-fold "
                               f"to (first at step {at + 1})")
    lines = {r.sender: parsed.statement for r in board
             if (parsed := try_parse_statement(r.line)) is not None
             and verify_transcript_record(r).ok}
    ok, why = check_statement(fold.state.offer, fold.state.statement, lines)
    if ok is False:
        out["problems"].append(f"statement provenance: {why}")
    round_ = panel_round(fold.state.offer, contract, room) if isinstance(contract, str) else None
    out["round"] = round_.to_dict() if round_ is not None else None
    if out["round"] != data.get("round"):
        out["problems"].append("the bundle's vote round differs from what its records say")
    if isinstance(contract, str):
        out["problems"] += round_problems(contract, round_)
    if data.get("rail"):
        out["rail"] = data["rail"]
    return out


__all__ = ["FORMAT", "audit_bundle", "build_bundle", "read_bundle"]
