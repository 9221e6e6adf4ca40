"""Names tclk/1 derives on the venue: rooms, note paths, and the small note-value codecs.

Everything here is a deterministic function of a contract id or a DID, so both parties (and any
auditor) derive the same names without coordination. None of these names is private and none of
the note values is an authority: notes are world-writable hints, moved with CAS.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, Final

from tclk_tui.protocol.canonical import MAX_SAFE_INTEGER, js_utf8
from tclk_tui.protocol.errors import FrameError, TclkError
from tclk_tui.protocol.locks import is_valid_statement
from tclk_tui.protocol.quoting import quote

OFFER_ROOM: Final = "tclk-offers"
"""The public rendezvous room: offers and accepts. World-writable, no class prefix."""

DEAL_ROOM_PREFIX: Final = "mb-p-tclk-"
"""`mb-` = signed writes only, `p-` = unlisted. Not confidential."""

ROOM_RE: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,47}")
"""The venue's room-name grammar (use with fullmatch)."""

CONTRACT_RE: Final = re.compile(r"0x[0-9a-f]{64}")
RAIL_REF_RE: Final = re.compile(r"[\x21-\x7e]{1,256}")
"""A state-note rail ref: printable ASCII without spaces, at most 256 chars."""

STATE_NOTE_STATUSES: Final = ("proposed", "accepted", "locked", "claimed", "refunded", "cancelled")

PAPER_RECORD_PREFIX: Final = "tclkpaper1"
PAPER_RECORD_STATUSES: Final = ("locked", "claimed", "refunded")
PAPER_LOCK_KINDS: Final = ("hash", "point")
_PAPER_SECRET_RE: Final = re.compile(r"0x[0-9a-f]{64}")
_STRICT_DECIMAL_RE: Final = re.compile(r"[1-9][0-9]{0,15}")


def _contract(contract: object) -> str:
    if not isinstance(contract, str) or CONTRACT_RE.fullmatch(contract) is None:
        raise FrameError(f"tclk: malformed contract id: {quote(contract)}")
    return contract


def deal_room(contract: str) -> str:
    """`mb-p-tclk-` + the first 16 hex of the contract id (26 chars)."""
    return DEAL_ROOM_PREFIX + _contract(contract)[2:18]


def state_note(contract: str) -> tuple[str, str]:
    """(namespace, key) of the contract's status pointer: `tclk-<2 hex>`, 14 hex."""
    c = _contract(contract)
    return "tclk-" + c[2:4], c[4:18]


def paper_note(contract: str) -> tuple[str, str]:
    """(namespace, key) of the paper rail's record: `tclk-paper-<2 hex>`, 14 hex."""
    c = _contract(contract)
    return "tclk-paper-" + c[2:4], c[4:18]


def encode_state_note(status: str, rail_ref: str | None = None) -> str:
    """`<status>` or `<status> <rail_ref>`. The status is written as given, like the reference."""
    if rail_ref is None:
        return status
    if not isinstance(rail_ref, str) or RAIL_REF_RE.fullmatch(rail_ref) is None:
        raise TclkError("tclk: rail ref must be printable ASCII without spaces (max 256 chars)")
    return f"{status} {rail_ref}"


def parse_state_note(value: object) -> dict[str, str | None] | None:
    """`{"status", "rail_ref"}` (rail_ref None when absent), or None for anything else."""
    if not isinstance(value, str):
        return None
    parts = value.split(" ")
    if len(parts) > 2 or parts[0] not in STATE_NOTE_STATUSES:
        return None
    if len(parts) == 1:
        return {"status": parts[0], "rail_ref": None}
    if RAIL_REF_RE.fullmatch(parts[1]) is None:
        return None
    return {"status": parts[0], "rail_ref": parts[1]}


def did_fingerprint(did: str) -> str:
    """First 16 lowercase hex of SHA-256 over the UTF-8 DID string (the venue convention)."""
    if not isinstance(did, str):
        raise TclkError("tclk: a DID must be a string")
    return hashlib.sha256(js_utf8(did)).hexdigest()[:16]


def did_note(did: str) -> tuple[str, str]:
    """(namespace, key) of a DID's note: `did-<2 hex>`, the remaining 14 hex."""
    fingerprint = did_fingerprint(did)
    return "did-" + fingerprint[:2], fingerprint[2:]


def legacy_did_note(did: str) -> tuple[str, str]:
    """The older unsharded location readers fall back to: `did`, 16 hex."""
    return "did", did_fingerprint(did)


def _parse_refund_after(text: str) -> int | None:
    # Stricter than the reference's Number(): only the plain decimal the encoder writes.
    if _STRICT_DECIMAL_RE.fullmatch(text) is None:
        return None
    value = int(text)
    return value if value <= MAX_SAFE_INTEGER else None


def decode_paper_record(value: object) -> dict[str, Any] | None:
    """Parse `tclkpaper1 <status> <lock> <statement> <refundAfterMs>[ <secret>]`, else None.

    Keys: status, lock, statement, refund_after_ms (int), and secret only when present.
    refundAfterMs must be plain decimal; the reference's Number() also took `1e3`, `0x10`,
    `+5`, `1.0` and `00012`, which its own encoder never writes.
    """
    if not isinstance(value, str):
        return None
    parts = value.split(" ")
    if len(parts) not in (5, 6) or parts[0] != PAPER_RECORD_PREFIX:
        return None
    _, status, lock, statement, refund_after_text, *rest = parts
    if status not in PAPER_RECORD_STATUSES or lock not in PAPER_LOCK_KINDS:
        return None
    if not is_valid_statement(lock, statement):
        return None
    refund_after_ms = _parse_refund_after(refund_after_text)
    if refund_after_ms is None:
        return None
    secret = rest[0] if rest else None
    if secret is not None and _PAPER_SECRET_RE.fullmatch(secret) is None:
        return None
    if (status == "claimed") != (secret is not None):
        return None
    record: dict[str, Any] = {
        "status": status,
        "lock": lock,
        "statement": statement,
        "refund_after_ms": refund_after_ms,
    }
    if secret is not None:
        record["secret"] = secret
    return record


_PAPER_REFERENCE_NAMES: Final = {"refundAfterMs": "refund_after_ms"}


def encode_paper_record(record: Mapping[str, Any]) -> str:
    """The single-line paper-rail record, refusing anything `decode_paper_record` would not read.

    Takes the keys `decode_paper_record` returns or the reference's (`refundAfterMs`), as the
    frame builders do. The error never repeats the record: after a claim it holds the secret.
    """
    fields: dict[str, Any] = {}
    for name, value in record.items():
        if value is None:
            continue
        key = _PAPER_REFERENCE_NAMES.get(name, name)
        if key in fields and fields[key] != value:
            raise TclkError(f"tclk: paper record gives {key} twice, with different values")
        fields[key] = value
    record = fields
    refund_after_ms = record.get("refund_after_ms")
    if type(refund_after_ms) is not int:
        raise TclkError("tclk: paper record refund_after_ms must be a positive unix-ms integer")
    parts = [
        PAPER_RECORD_PREFIX,
        str(record.get("status")),
        str(record.get("lock")),
        str(record.get("statement")),
        str(refund_after_ms),
    ]
    secret = record.get("secret")
    if secret is not None:
        parts.append(str(secret))
    line = " ".join(parts)
    if decode_paper_record(line) != record:
        raise TclkError("tclk: paper record is not well-formed")
    return line
