"""Offline audit of exported rooms: verify every record and fold every contract found.

This is what a third party runs on `/export` files alone: no venue, no vault, no clock. The
board file yields the handshakes; each contract's deal-room file (if given) supplies the rest.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Awaitable, Callable, Container, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tclk_tui.engine.arbitration.vote_round import RoundView, offer_round
from tclk_tui.engine.errors import os_error_sentence
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.side_lines import is_vote_line
from tclk_tui.protocol.transcript import (
    TranscriptRecord,
    check_nonce_order,
    find_contract_handshake,
    fold_transcript,
    parse_transcript_export,
    verify_transcript_record,
)
from tclk_tui.technocore.records import RoomExport

MAX_LISTED = 50  # forged records named one by one; past that, counted


@dataclass
class ContractAudit:
    contract: str
    status: str
    steps: list[tuple[str, int, str | None, bool, str | None]]  # room, seq, type, ok, reason
    round: RoundView | None = None  # the panel's commit-reveal round, when the offer names one


@dataclass
class AuditReport:
    files: list[str] = field(default_factory=list)
    records: int = 0
    unverified: int = 0  # forged + unsigned
    forged: int = 0  # signed records whose signature fails: the audit fails
    unsigned: int = 0  # the unsigned lane's lines: data, never a commitment, ignored
    problems: list[str] = field(default_factory=list)
    contracts: list[ContractAudit] = field(default_factory=list)
    bundles: list[dict] = field(default_factory=list)  # evidence bundles, each audited alone

    @property
    def ok(self) -> bool:
        return not self.problems and not any(b["problems"] for b in self.bundles)

    def to_dict(self) -> dict:
        return {"files": self.files, "records": self.records, "unverified": self.unverified,
                "forged": self.forged, "unsigned": self.unsigned,
                "problems": self.problems, "ok": self.ok,
                "contracts": [{"contract": c.contract, "status": c.status,
                               "steps": [{"room": r, "seq": s, "type": t, "ok": o,
                                          "reason": why} for r, s, t, o, why in c.steps],
                               "round": c.round.to_dict() if c.round is not None else None}
                              for c in self.contracts],
                "bundles": self.bundles}


def _room_of(path: Path) -> tuple[Path, str, bool]:
    """The file, the room its records are read in, and whether the room was given (FILE:ROOM)
    rather than taken from the file name."""
    text = str(path)
    if ":" in text and not Path(text).exists():
        file_part, _, room = text.rpartition(":")
        return Path(file_part), room, True
    return path, path.name.removesuffix(".jsonl"), False


def audit_exports(paths: list[Path]) -> AuditReport:
    from tclk_tui.engine.bundle import audit_bundle, read_bundle  # bundle builds on this module

    report = AuditReport()
    rooms: dict[str, list[TranscriptRecord]] = {}
    read: list[tuple[Path, str, bool, list[TranscriptRecord]]] = []
    for raw in paths:
        path, room, given = _room_of(raw)
        report.files.append(f"{path} ({room})")
        try:
            text = path.read_text(encoding="utf-8")
            bundle = read_bundle(text)
            if bundle is not None:  # one deal's evidence bundle, audited on its own
                report.bundles.append(audit_bundle(str(path), bundle))
                continue
            records = parse_transcript_export(room, text)
        except OSError as exc:
            report.problems.append(os_error_sentence(exc, "read the export"))
            continue
        except (UnicodeDecodeError, TclkError) as exc:
            report.problems.append(f"{path}: {exc}")
            continue
        read.append((path, room, given, records))
        rooms.setdefault(room, []).extend(records)
    wrong_room = _signed_elsewhere(read)
    report.problems += wrong_room.values()
    return audit_transcripts(rooms, report, explained=set(wrong_room))


def _signed_elsewhere(read: list[tuple[Path, str, bool, list[TranscriptRecord]]]
                      ) -> dict[str, str]:
    """A file whose every signature fails was almost always read in the wrong room: each
    record is signed over its room's name, and the room comes from the file name. Say so, and
    name the room they do verify in when it is the board or a deal room named in the files.
    By the room each such file was read in."""
    candidates = [OFFER_ROOM]
    for _path, _room, _given, records in read:
        for record in records:
            frame = try_decode_frame(record.line)
            contract = frame.get("contract") if frame else None
            if isinstance(contract, str):
                with contextlib.suppress(TclkError, ValueError):
                    if deal_room(contract) not in candidates:
                        candidates.append(deal_room(contract))
    problems: dict[str, str] = {}
    for path, room, given, records in read:
        if not records or any(verify_transcript_record(r).ok for r in records):
            continue
        where = f"room {room}" + (" (as given)" if given else f" (from the file name {path.name})")
        signed = next((c for c in candidates if c != room and all(
            verify_transcript_record(dataclasses.replace(r, room=c)).ok for r in records)), None)
        if signed is not None:
            problems[room] = (f"signatures fail in {path}: the records were signed in room "
                              f"{signed}, not {where}; rename the file to {signed}.jsonl or "
                              f"pass it as {path}:{signed}")
        else:
            problems[room] = (f"every signature in {path} fails for {where}: if it was "
                              f"exported from another room, pass it as {path}:ROOM")
    return problems


def audit_transcripts(rooms: dict[str, list[TranscriptRecord]],
                      report: AuditReport | None = None, *,
                      explained: Container[str] = ()) -> AuditReport:
    """The same audit on records already read (a live export), keyed by room. Rooms in
    `explained` failed every signature for a reason already stated (a file read in the wrong
    room): their records count as forged without being listed one by one."""
    report = report if report is not None else AuditReport(files=sorted(rooms))
    listed = 0
    for room, records in rooms.items():
        report.records += len(records)
        for record in records:
            kind, problem = record_verdict(record)
            if kind == "unsigned":
                report.unsigned += 1
            elif kind == "forged":
                report.forged += 1
                if room not in explained:
                    listed += 1
                    if listed <= MAX_LISTED:
                        report.problems.append(problem)
    if listed > MAX_LISTED:
        report.problems.append(f"… and {listed - MAX_LISTED} more forged records")
    report.unverified = report.forged + report.unsigned
    for violation in check_nonce_order([r for rs in rooms.values() for r in rs]):
        report.problems.append(
            f"{violation.room}: nonce of {violation.sender} went backwards at record "
            f"{violation.index}: the export is not evidence")
    board = rooms.get(OFFER_ROOM, [])
    contracts = []
    for record in board:
        frame = try_decode_frame(record.line)
        if frame and frame["type"] == "accept" and frame["contract"] not in contracts:
            contracts.append(frame["contract"])
    for contract in contracts:
        try:
            handshake = find_contract_handshake(board, contract)
        except TclkError as exc:
            report.problems.append(str(exc))
            continue
        if handshake is None:
            continue
        fold = fold_transcript([handshake.offer, handshake.accept,
                                *rooms.get(deal_room(contract), [])])
        if fold.state is None:
            continue
        round_ = panel_round(fold.state.offer, contract, rooms.get(deal_room(contract), []))
        report.problems += round_problems(contract, round_)
        report.contracts.append(ContractAudit(
            contract=contract, status=fold.state.status,
            steps=[(s.room, s.seq, s.type, s.ok, s.reason) for s in fold.steps],
            round=round_))
    return report


def record_verdict(record: TranscriptRecord) -> tuple[str, str]:
    """("ok" | "unsigned" | "forged", the problem to state for a forged one).

    A line of the unsigned lane is data anyone may write, and a board holds plenty of it; a
    record that carries a signature which does not verify claims a DID it cannot prove: that
    is a forgery (or a file read in the wrong room) and the audit fails on it."""
    verdict = verify_transcript_record(record)
    if verdict.ok:
        return "ok", ""
    if verdict.reason == "record is unsigned":
        return "unsigned", ""
    return "forged", (f"{record.room} #{record.seq}: forged: a signed record naming "
                      f"{str(record.sender)[:24]} fails verification ({verdict.reason})")


def round_problems(contract: str, round_: RoundView | None) -> list[str]:
    """A juror whose opening does not match its own commitment fails the audit."""
    if round_ is None:
        return []
    return [f"contract {contract[:18]}…: juror {j.index + 1}'s opening does not match its "
            "commitment" for j in round_.jurors if "mismatched opening" in j.flags]


def panel_round(offer: Mapping[str, Any], contract: str,
                records: list[TranscriptRecord]) -> RoundView | None:
    """The commit-reveal round of the offer's panel read from the deal room, offline (no clock:
    the phase counts as closed only once every juror committed)."""
    if not any(is_vote_line(r.line) for r in records):
        return None
    return offer_round(offer, contract, records)


async def audit_live(export: Callable[[str], Awaitable[RoomExport]],
                     contract: str) -> AuditReport:
    """The same audit on the venue's live exports of the board and one contract's room;
    `export(room)` is the venue client's export (a face never names the rooms itself)."""
    room = deal_room(contract)
    board_export = await export(OFFER_ROOM)
    room_export = await export(room)
    return audit_transcripts({OFFER_ROOM: board_export.transcript,
                              room: room_export.transcript})
