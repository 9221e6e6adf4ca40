"""Signed venue records: normalising, verifying and folding them into one contract's state.

A frame proves nothing on its own; the venue record that carried it does. A record keeps the
room, the venue's seq and time, the transport sender, its nonce and Ed25519 signature, and the
exact stored text, and only that bundle can be re-verified offline. The fold replays records in
the order given, at each record's venue time, through the state machine.

Where this module is deliberately stricter than the TypeScript reference:
- numeric nonces of any size are kept exactly (the reference rejects venue nonces above
  2**53 - 1, which makes real exports with 19-digit nonces unreadable there);
- a timestamp naming an impossible calendar day (2026-02-30) is rejected instead of rolled over;
- `find_contract_handshake` recomputes the contract id, so a stranger's accept that merely copies
  the contract field cannot stand in for the real one;
- a frame whose `type` is not a string is a failed step, never a crash.
"""

from __future__ import annotations

import binascii
import datetime as _dt
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from functools import lru_cache
from typing import Any, Final, Literal

from nacl._sodium import ffi as _sodium_ffi
from nacl._sodium import lib as _sodium_lib
from nacl.bindings import crypto_sign_open

from tclk_tui.protocol.canonical_lines import read_canonical as _read_canonical
from tclk_tui.protocol.codec import decode_frame, decode_frame_reference
from tclk_tui.protocol.didkey import DID_RE, public_key_from_did_key
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.frames import Frame, OfferFrame
from tclk_tui.protocol.ids import contract_id
from tclk_tui.protocol.jsondepth import too_deep
from tclk_tui.protocol.machine import (
    ContractState,
    ReadMapping,
    _judge,
    _open_validated,
    accept_core,
)
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.quoting import quote
from tclk_tui.protocol.rails import js_trim

RoomBinding = Literal["strict", "offer-room"]
ROOM_BINDINGS: Final[tuple[str, ...]] = ("strict", "offer-room")

MAX_SAFE_INTEGER: Final = 2**53 - 1
TRANSCRIPT_ROOM_RE: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,47}")
RECORD_NONCE_RE: Final = re.compile(r"0|[1-9][0-9]*")
SIGNATURE_RE: Final = re.compile(r"[A-Za-z0-9_-]{85}[AQgw]")
TIMESTAMP_RE: Final = re.compile(
    r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]+))?"
    r"(Z|([+-])([01][0-9]|2[0-3]):([0-5][0-9]))"
)
_EPOCH_ORDINAL: Final = _dt.date(1970, 1, 1).toordinal()
_SURROGATE_RE: Final = re.compile("[\ud800-\udfff]")
# base64url letters to the standard ones, and the standard-only `+/=` to a letter the strict
# decoder refuses, so that decoder admits exactly what SIGNATURE_RE does (with the length and
# last-letter checks in `_verify_fields`; a property test checks the two agree).
_URLSAFE: Final = bytes.maketrans(b"-_+/=", b"+/!!!")
_a2b_base64: Final = binascii.a2b_base64
# A fold opens every record into one output buffer of this size, made for that fold alone;
# a longer signed message (never a valid frame, but still verified first) goes through
# `nacl.bindings.crypto_sign_open`, which allocates its own.
_OPEN_BYTES: Final = 16_384


# ------------------------------------------------------------------------------------ records


@dataclass(frozen=True, slots=True)
class TranscriptRecord(ReadMapping):
    """One venue message as stored: `line` is the exact text the signature covers.

    `seq` and `timestamp_ms` are the venue's unsigned metadata; `nonce` is canonical decimal
    text (kept exact, whatever its size) or None for an unsigned record.
    """

    room: str
    seq: int
    timestamp_ms: int
    sender: str
    nonce: str | None
    signature: str | None
    line: str


@dataclass(frozen=True, slots=True)
class VerifyResult(ReadMapping):
    """ok, or not ok with the reference's reason (these reasons carry no `tclk: ` prefix).

    Truthy iff ok, and unpacks like `(ok, reason)`.
    """

    ok: bool
    reason: str | None = None

    def __bool__(self) -> bool:
        return self.ok

    def __iter__(self) -> Iterator[Any]:
        return iter((self.ok, self.reason))


_VERIFIED: Final = VerifyResult(True, None)


def signed_message(room: str, nonce: str, text: str) -> bytes:
    """The bytes a venue signature covers: UTF-8 of `<room>|<nonce>|<text>`.

    A lone surrogate (only reachable through hostile input) becomes U+FFFD, as JavaScript's
    TextEncoder does, instead of raising.
    """
    joined = f"{room}|{nonce}|{text}"
    try:
        return joined.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE_RE.sub("\ufffd", joined).encode("utf-8")


_MAX_DID_CHARS: Final = 128  # far above any did:key; longer senders are never cached


@lru_cache(maxsize=4096)
def _sender_key(did: str) -> bytes | None:
    """The Ed25519 public key of a did:key sender (senders repeat: parsed once each)."""
    if DID_RE.fullmatch(did) is None:
        return None
    return public_key_from_did_key(did)


def sender_key(did: str) -> bytes | None:
    """The Ed25519 public key of a did:key sender, or None when the sender is none; text
    longer than any did:key is refused before the cache, so hostile senders never fill it."""
    return _sender_key(did) if len(did) <= _MAX_DID_CHARS else None


@lru_cache(maxsize=1024)
def room_ok(room: str) -> bool:
    """Whether `room` is a valid transcript room name (names repeat: checked once each)."""
    return len(room) <= 256 and TRANSCRIPT_ROOM_RE.fullmatch(room) is not None


def _is_safe_index(value: object) -> bool:
    """A JS safe integer >= 0 (an integral float counts, a bool does not)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0 <= value <= MAX_SAFE_INTEGER
    if isinstance(value, float):
        return value.is_integer() and 0 <= value <= MAX_SAFE_INTEGER
    return False


_ABSENT: Final = object()


def _record_fields(record: object) -> tuple[Any, ...] | None:
    """(room, seq, timestamp_ms, line, sender, nonce, signature) of a record-shaped value."""
    if isinstance(record, TranscriptRecord):
        return (
            record.room,
            record.seq,
            record.timestamp_ms,
            record.line,
            record.sender,
            record.nonce,
            record.signature,
        )
    if isinstance(record, Mapping):
        stamp = record.get("timestampMs", _ABSENT)
        if stamp is _ABSENT:
            stamp = record.get("timestamp_ms")
        return (
            record.get("room"),
            record.get("seq"),
            stamp,
            record.get("line"),
            record.get("sender"),
            record.get("nonce"),
            record.get("signature"),
        )
    return None


def _open_scratch() -> tuple[Any, Any]:
    """Output buffers for libsodium's `crypto_sign_open`, for the records of one fold: the
    opened message is never read, so reusing them saves two allocations and a copy each."""
    return _sodium_ffi.new("unsigned char[]", _OPEN_BYTES), _sodium_ffi.new("unsigned long long *")


def _verify_fields(
    fields: tuple[Any, ...] | None, scratch: tuple[Any, Any] | None = None
) -> str | None:
    if fields is None:
        return "record is not an object"
    room, seq, stamp, line, sender, nonce, signature = fields
    if not isinstance(room, str) or not room_ok(room):
        return "record has an invalid room name"
    # Plain ints in range first (every record a venue writes), the full rule otherwise.
    if not (type(seq) is int and 0 <= seq <= MAX_SAFE_INTEGER) and not _is_safe_index(seq):
        return "record seq must be a non-negative safe integer"
    if not (
        type(stamp) is int and 0 <= stamp <= MAX_SAFE_INTEGER
    ) and not _is_safe_index(stamp):
        return "record timestampMs must be a non-negative safe integer"
    if not isinstance(line, str):
        return "record line must be a string"
    if not isinstance(sender, str):
        return "record sender must be a string"
    if nonce is None or signature is None:
        return "record is unsigned"
    if type(nonce) is not str and isinstance(nonce, int) and not isinstance(nonce, bool):
        nonce = str(nonce)  # JS template strings render a numeric nonce as its digits
    # `RECORD_NONCE_RE.fullmatch(nonce)`: ASCII digits, no leading zero but "0" itself.
    if not (
        isinstance(nonce, str)
        and nonce.isascii()
        and nonce.isdigit()
        and (nonce[0] != "0" or len(nonce) == 1)
    ):
        return "record nonce is not canonical decimal"
    # `SIGNATURE_RE.fullmatch(signature)` and the 64 bytes it spells, in one C decoder pass.
    if not isinstance(signature, str) or len(signature) != 86 or signature[85] not in "AQgw":
        return "record signature is not canonical base64url"
    try:
        raw = _a2b_base64(signature.encode("ascii").translate(_URLSAFE) + b"==", strict_mode=True)
    except (UnicodeEncodeError, binascii.Error):
        return "record signature is not canonical base64url"
    public_key = sender_key(sender)
    if public_key is None:
        return "record sender is not an Ed25519 did:key"
    return _signature_opens(raw, room, nonce, line, public_key, scratch)


def _signature_opens(
    raw: bytes, room: str, nonce: str, line: str, public_key: bytes,
    scratch: tuple[Any, Any] | None,
) -> str | None:
    """None when the 64 signature bytes `raw` sign `<room>|<nonce>|<line>` under the key."""
    try:
        # libsodium directly: the fold's one unavoidable cost, without a wrapper around it.
        joined = f"{room}|{nonce}|{line}"  # `signed_message`, written out for its usual case
        try:
            signed = raw + joined.encode("utf-8")
        except UnicodeEncodeError:
            signed = raw + signed_message(room, nonce, line)
        if scratch is None or len(signed) > _OPEN_BYTES:
            crypto_sign_open(signed, public_key)
        elif _sodium_lib.crypto_sign_open(
            scratch[0], scratch[1], signed, len(signed), public_key  # a 32-byte key, always
        ) != 0:
            return "record signature does not verify"
    except Exception:
        return "record signature does not verify"
    return None


def verify_transcript_record(record: object) -> VerifyResult:
    """Check shape, then the Ed25519 signature over `<room>|<nonce>|<line>`. Never raises.

    PyNaCl (libsodium) verifies RFC-strictly where the reference uses ZIP-215 rules; the two
    agree on every honestly produced signature.
    """
    try:
        reason = _verify_fields(_record_fields(record))
    except Exception:
        reason = "record signature does not verify"
    return _VERIFIED if reason is None else VerifyResult(False, reason)


# ------------------------------------------------------------------------ venue JSON -> records



def parse_timestamp_ms(text: str) -> int:
    """Unix ms of a timezone-qualified RFC 3339 time; fraction beyond ms is truncated.

    Raises TclkError for anything the venue could not have written, impossible calendar days and
    instants before 1970 included.
    """
    match = TIMESTAMP_RE.fullmatch(text)
    if match is None:
        raise TclkError("tclk: transcript message timestamp must be timezone-qualified RFC 3339")
    year, month, day, hour, minute, second, fraction, zone, sign, off_h, off_m = match.groups()
    try:
        days = _dt.date(int(year), int(month), int(day)).toordinal() - _EPOCH_ORDINAL
    except ValueError:
        raise TclkError("tclk: transcript message timestamp is invalid") from None
    millis = int((fraction or "")[:3].ljust(3, "0"))
    stamp = ((days * 24 + int(hour)) * 60 + int(minute)) * 60 + int(second)
    stamp = stamp * 1000 + millis
    if zone != "Z":
        offset = (int(off_h) * 60 + int(off_m)) * 60_000
        stamp = stamp - offset if sign == "+" else stamp + offset
    if not 0 <= stamp <= MAX_SAFE_INTEGER:
        raise TclkError("tclk: transcript message timestamp is invalid")
    return stamp


def _nonce_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value  # checked for canonical form only when the record is verified
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return str(value)  # exact, whatever its size (the reference caps at 2**53 - 1)
        except ValueError:
            pass  # beyond Python's int-to-text digit limit
    elif isinstance(value, float) and value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
        return str(int(value))
    raise TclkError("tclk: transcript message nonce must be decimal text")


def transcript_record(room: str, message: Mapping[str, Any]) -> TranscriptRecord:
    """A record from one venue message (`?format=json` item or export row) read in `room`."""
    if not isinstance(room, str) or TRANSCRIPT_ROOM_RE.fullmatch(room) is None:
        raise TclkError(f"tclk: invalid transcript room {quote(room)}")
    if not isinstance(message, Mapping):
        raise TclkError("tclk: transcript message is not a JSON object")
    seq = message.get("seq")
    if not _is_safe_index(seq):
        raise TclkError("tclk: transcript message seq must be a non-negative safe integer")
    stamp = message.get("ts")
    if not isinstance(stamp, str):
        raise TclkError("tclk: transcript message has no timestamp")
    timestamp_ms = parse_timestamp_ms(stamp)
    sender = message.get("from")
    if not isinstance(sender, str):
        raise TclkError("tclk: transcript message has no sender")
    text = message.get("text")
    if not isinstance(text, str):
        raise TclkError("tclk: transcript message has no text")
    nonce = _nonce_text(message.get("nonce"))
    signature = message.get("sig")
    if signature is not None and not isinstance(signature, str):
        raise TclkError("tclk: transcript message signature must be text")
    return TranscriptRecord(
        room=room,
        seq=int(seq),  # type: ignore[arg-type]
        timestamp_ms=timestamp_ms,
        sender=sender,
        nonce=nonce,
        signature=signature,
        line=text,
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"JSON has no {name}")


def parse_transcript_export(room: str, jsonl: str) -> list[TranscriptRecord]:
    """Every row of a `/r/<room>/export` file, all or nothing (one bad row fails the export).

    Line numbers in errors are 1-based over the split lines, blank lines counted.
    """
    records: list[TranscriptRecord] = []
    for index, row in enumerate(jsonl.split("\n"), start=1):
        if js_trim(row) == "":
            continue
        try:
            if too_deep(row):
                raise RecursionError
            message = json.loads(row, parse_constant=_reject_constant)
        except RecursionError:
            raise TclkError(f"tclk: transcript export line {index} is nested too deeply") from None
        except ValueError:
            raise TclkError(f"tclk: transcript export line {index} is not JSON") from None
        try:
            records.append(transcript_record(room, message))
        except TclkError as exc:
            detail = str(exc).removeprefix("tclk: ")
            raise TclkError(f"tclk: transcript export line {index}: {detail}") from None
    return records


# --------------------------------------------------------------------------------------- fold


@dataclass(frozen=True, slots=True)
class FoldStep(ReadMapping):
    """What one record did: `type` is None when the record never got as far as a frame."""

    index: int
    room: str
    seq: int
    type: str | None
    ok: bool
    reason: str | None = None


# A fold makes one FoldStep per record: its slots are filled directly, which costs half the
# frozen dataclass `__init__` (six `object.__setattr__` calls by name). FoldStep has no
# `__post_init__`; the assert keeps the setters in step with its fields.
_STEP_FIELDS: Final = ("index", "room", "seq", "type", "ok", "reason")
assert tuple(f.name for f in dataclass_fields(FoldStep)) == _STEP_FIELDS
_new_object: Final = object.__new__
_SET_INDEX, _SET_ROOM, _SET_SEQ, _SET_TYPE, _SET_OK, _SET_REASON = (
    FoldStep.__dict__[name].__set__ for name in _STEP_FIELDS
)


def _fold_step(
    index: int, room: str, seq: int, kind: str | None, ok: bool, reason: str | None
) -> FoldStep:
    """`FoldStep(index, room, seq, kind, ok, reason)`, equal to it in every way."""
    step = _new_object(FoldStep)
    _SET_INDEX(step, index)
    _SET_ROOM(step, room)
    _SET_SEQ(step, seq)
    _SET_TYPE(step, kind)
    _SET_OK(step, ok)
    _SET_REASON(step, reason)
    return step


@dataclass(frozen=True, slots=True)
class Fold(ReadMapping):
    """The state the records establish (None if no offer opened a contract) and every step."""

    state: ContractState | None
    steps: tuple[FoldStep, ...]


def _decoded(line: str) -> tuple[Frame | None, str | None]:
    try:
        return decode_frame(line), None
    except TclkError as exc:
        return None, str(exc)
    except Exception as exc:
        return None, f"tclk: frame could not be decoded ({type(exc).__name__})"


def _after_verify(
    state: ContractState | None,
    room: str,
    stamp: Any,
    line: str,
    sender: str,
    board_only: bool,
    deal_rooms: dict[str, str],
) -> tuple[ContractState | None, str | None, bool, str | None]:
    """(next state, frame type, ok, reason) for a record whose signature verified; `deal_rooms`
    remembers, for one fold, the deal room derived from each contract id already seen."""
    # `decode_frame`, written out: this runs once per record of every fold.
    frame = _read_canonical(line) if type(line) is str else None
    if frame is None:
        try:
            frame = decode_frame_reference(line)
        except TclkError as exc:
            return state, None, False, str(exc)
        except Exception as exc:
            return state, None, False, f"tclk: frame could not be decoded ({type(exc).__name__})"
    kind = frame.get("type")
    if not isinstance(kind, str):
        return state, None, False, f"tclk: unknown frame type: {quote(kind)}"
    if frame.get("from") != sender:
        return state, kind, False, f"{kind}.from does not match the record sender"
    if state is None:
        if kind != "offer":
            return state, kind, False, "no contract open yet"
        if room != OFFER_ROOM:
            return state, kind, False, "offer must be posted in tclk-offers"
        return _open_validated(frame), kind, True, None
    contract = state.contract
    if contract is None or board_only or kind == "offer" or kind == "accept":
        expected = OFFER_ROOM
    else:
        known = deal_rooms.get(contract)
        if known is None:
            known = deal_rooms[contract] = deal_room(contract)
        expected = known
    if room != expected:
        where = "tclk-offers" if expected == OFFER_ROOM else f"the derived deal room {expected}"
        return state, kind, False, f"{kind} must be posted in {where}"
    after, reason = _judge(state, frame, stamp)
    return after, kind, reason is None, reason


_SEEN_MAX: Final = 4096  # room names and sender keys a fold remembers (hostile input: bounded)


def _remember(fields: tuple[Any, ...], names: set[str], keys: dict[str, bytes]) -> None:
    """Note a record's room name and sender key when they are valid, for the usual path."""
    room, sender = fields[0], fields[4]
    if type(room) is str and len(names) < _SEEN_MAX and room_ok(room):
        names.add(room)
    if type(sender) is str and len(keys) < _SEEN_MAX:
        key = sender_key(sender)
        if key is not None:
            keys[sender] = key


# One record's check: (room, seq, reason, stamp, line, sender), where `reason` is why the record
# fails before any frame is read (None: its signature verified, and the last three are set).
Checked = tuple[str, int, "str | None", Any, Any, Any]


class _FoldScope:
    """What one fold remembers across its records: the deal room of each contract id, and the
    room names and sender keys it has found valid (bounded: hostile input picks them), with
    one output buffer for libsodium."""

    __slots__ = ("board_only", "deal_rooms", "keys", "names", "scratch")

    def __init__(self, room_binding: str) -> None:
        if room_binding not in ROOM_BINDINGS:
            raise TclkError(f"tclk: unknown roomBinding {quote(room_binding)}")
        self.board_only = room_binding == "offer-room"
        self.deal_rooms: dict[str, str] = {}
        self.names: set[str] = set()  # room names `room_ok` admitted in this fold
        self.keys: dict[str, bytes] = {}  # `sender_key` of senders seen, when a key
        self.scratch = _open_scratch()

    def check(self, record: object, verified: bool = False) -> Checked:
        """The record's shape and signature checks. `verified` says the caller already has
        `verify_transcript_record(record)` ok for this very record (a venue client checks
        every record it reads): its fields are then read, not checked a second time.

        A record as the venue writes them (a TranscriptRecord of exact types whose room name
        and sender this fold has already found valid) passes the shape checks of
        `_verify_fields` in one expression that implies every one of them; any other record is
        checked by that function itself, in its order, so every refusal is its own."""
        names, keys = self.names, self.keys
        try:
            usual = (
                type(record) is TranscriptRecord
                and type(room := record.room) is str
                and room in names
                and type(seq := record.seq) is int
                and type(stamp := record.timestamp_ms) is int
                # both in 0 ..= MAX_SAFE_INTEGER: an OR of ints is negative iff one is, and
                # below 2**53 iff both non-negative ones are
                and not (seq | stamp) >> 53
                and type(line := record.line) is str
                and type(sender := record.sender) is str
                and type(nonce := record.nonce) is str
                and nonce.isascii()
                and nonce.isdigit()
                and (nonce[0] != "0" or len(nonce) == 1)
                and type(signature := record.signature) is str
                and len(signature) == 86
                and signature[85] in "AQgw"
                and (key := keys.get(sender)) is not None
            )
        except Exception:  # a record whose slots were never set: the full path says why
            usual = False
        if usual:
            fields = None
        else:
            try:
                fields = _record_fields(record)
            except Exception:
                fields = None
            if fields is None:
                room, seq = "", -1
            else:
                room = fields[0] if isinstance(fields[0], str) else ""
                seq = fields[1]
                if type(seq) is not int or not 0 <= seq <= MAX_SAFE_INTEGER:
                    seq = int(seq) if _is_safe_index(seq) else -1
        try:
            if usual and verified:
                reason: str | None = None
            elif usual:
                # The tail of `_verify_fields` once its shape checks have passed (`usual` holds
                # that signature, nonce and key are set: mypy cannot see through it).
                try:
                    raw = _a2b_base64(
                        signature.encode("ascii").translate(_URLSAFE)  # type: ignore[union-attr]
                        + b"==",
                        strict_mode=True,
                    )
                except (UnicodeEncodeError, binascii.Error):
                    reason = "record signature is not canonical base64url"
                else:
                    reason = _signature_opens(
                        raw, room, nonce, line, key, self.scratch  # type: ignore[arg-type]
                    )
            else:
                if fields is not None:
                    _remember(fields, names, keys)
                # `verified` is `verify_transcript_record` ok, which is this very call's None.
                reason = (None if verified and fields is not None
                          else _verify_fields(fields, self.scratch))
                if reason is None:
                    assert fields is not None
                    _room, _seq, stamp, line, sender = fields[:5]
        except Exception as exc:  # fail closed: a hostile record is a failed step, never a crash
            reason = f"tclk: record could not be folded ({type(exc).__name__})"
        if reason is not None:
            return room, seq, reason, None, None, None
        return room, seq, None, stamp, line, sender

    def judge(
        self, state: ContractState | None, checked: Checked
    ) -> tuple[ContractState | None, str | None, bool, str | None]:
        """(next state, frame type, ok, reason) of a checked record folded onto `state`."""
        room, _seq, reason, stamp, line, sender = checked
        if reason is not None:
            return state, None, False, reason
        try:
            return _after_verify(
                state, room, stamp, line, sender, self.board_only, self.deal_rooms
            )
        except Exception as exc:  # fail closed: a hostile record is a failed step, never a crash
            return state, None, False, f"tclk: record could not be folded ({type(exc).__name__})"


def fold_transcript(records: Iterable[object], room_binding: str = "strict") -> Fold:
    """Replay records in order into one contract. Never raises on record content.

    `room_binding="strict"` puts post-accept frames in the derived deal room; `"offer-room"`
    keeps the whole deal on the board (for agents that cannot open new rooms). `RunningFold`
    gives the same fold of a list that grows, record by record.
    """
    scope = _FoldScope(room_binding)
    check, judge = scope.check, scope.judge
    state: ContractState | None = None
    steps: list[FoldStep] = []
    for index, record in enumerate(records):
        checked = check(record)
        state, kind, ok, reason = judge(state, checked)
        steps.append(_fold_step(index, checked[0], checked[1], kind, ok, reason))
    return Fold(state, tuple(steps))


class RunningFold:
    """`fold_transcript` of a record list that grows, each change costing what it can move.

    A record added at the end costs its one check and one step. One added before the end (a
    transcript read out of venue order) is checked once too; the records after it are judged
    again from the states their checks left (no signature checked twice), only as far as the
    state entering each differs from what entered it before, and the steps after that keep
    their outcome and only move up one place. `fold()` always equals `fold_transcript` of the
    records in their current order (property-tested over random records and insertion orders).
    """

    def __init__(self, records: Iterable[object] = (), room_binding: str = "strict") -> None:
        self._scope = _FoldScope(room_binding)
        self._records: list[object] = []
        self._checks: list[Checked] = []
        self._after: list[ContractState | None] = []  # the state after each record
        self._steps: list[FoldStep] = []
        self._cached: tuple[FoldStep, ...] | None = ()
        for record in records:
            self.insert(len(self._records), record)

    def __len__(self) -> int:
        return len(self._records)

    @property
    def state(self) -> ContractState | None:
        return self._after[-1] if self._after else None

    @property
    def steps(self) -> tuple[FoldStep, ...]:
        if self._cached is None:
            self._cached = tuple(self._steps)
        return self._cached

    @property
    def last_step(self) -> FoldStep | None:
        return self._steps[-1] if self._steps else None

    @property
    def records(self) -> list[object]:
        """The records in fold order (a copy)."""
        return list(self._records)

    def signed(self, index: int) -> bool:
        """Whether record `index`'s signature verified (`verify_transcript_record` ok)."""
        return self._checks[index][2] is None

    def fold(self) -> Fold:
        return Fold(self.state, self.steps)

    def append(self, record: object, *, verified: bool = False) -> None:
        self.insert(len(self._records), record, verified=verified)

    def insert(self, position: int, record: object, *, verified: bool = False) -> None:
        """Fold `record` in as if it had stood at `position` (0 ..= len) all along.

        `verified`: the caller already has `verify_transcript_record(record)` ok for it, and
        its signature is not checked again."""
        count = len(self._records)
        if not 0 <= position <= count:
            raise IndexError(f"position {position} is outside 0..{count}")
        scope = self._scope
        checked = scope.check(record, verified)
        entering = self._after[position - 1] if position else None
        state, kind, ok, reason = scope.judge(entering, checked)
        self._records.insert(position, record)
        self._checks.insert(position, checked)
        self._after.insert(position, state)
        self._steps.insert(position, _fold_step(position, checked[0], checked[1], kind, ok,
                                                reason))
        self._cached = None
        # What entered each later record before, against what enters it now.
        before, now = entering, state
        index = position + 1
        while index <= count and not (now is before or now == before):
            old_after = self._after[index]
            room, seq = self._checks[index][0], self._checks[index][1]
            now_after, kind, ok, reason = scope.judge(now, self._checks[index])
            self._after[index] = now_after
            self._steps[index] = _fold_step(index, room, seq, kind, ok, reason)
            before, now = old_after, now_after
            index += 1
        for later in range(index, count + 1):  # same outcome, one place further on
            step = self._steps[later]
            self._steps[later] = _fold_step(later, step.room, step.seq, step.type, step.ok,
                                            step.reason)


# ---------------------------------------------------------------------------------- handshake


@dataclass(frozen=True, slots=True)
class Handshake(ReadMapping):
    """The authenticated board records that fix a contract: its offer and the matching accept."""

    offer: TranscriptRecord
    accept: TranscriptRecord


def find_contract_handshake(
    records: Iterable[object], contract: str
) -> Handshake | None:
    """The first authenticated offer/accept pair on the board whose ids really make `contract`.

    Unlike the reference, the contract id is recomputed from the pair: an accept that copies
    the contract field but was not the one the id commits to (a stranger's, say) is skipped.
    Raises TclkError for a malformed contract id, or when an accept for it came before any
    authenticated offer and no pair was found.
    """
    deal_room(contract)  # raises on a malformed contract id
    offers: dict[str, tuple[TranscriptRecord | Any, OfferFrame]] = {}
    orphan_accept = False
    for record in records:
        fields = _record_fields(record)
        if fields is None or fields[0] != OFFER_ROOM or _verify_fields(fields) is not None:
            continue
        frame, _ = _decoded(fields[3])
        if frame is None or frame.get("from") != fields[4]:
            continue
        if frame["type"] == "offer":
            offers.setdefault(frame["id"], (record, frame))
        elif frame["type"] == "accept" and frame["contract"] == contract:
            known = offers.get(frame["ref"])
            if known is None:
                orphan_accept = True
                continue
            offer_record, offer_frame = known
            try:
                genuine = contract_id(offer_frame, accept_core(frame)) == contract
            except Exception:
                genuine = False
            if genuine:
                return Handshake(_as_record(offer_record), _as_record(record))
    if orphan_accept:
        raise TclkError(f"tclk: accept for {contract} has no preceding authenticated offer")
    return None


def _as_record(record: object) -> TranscriptRecord:
    if isinstance(record, TranscriptRecord):
        return record
    fields = _record_fields(record)
    assert fields is not None
    room, seq, stamp, line, sender, nonce, signature = fields
    nonce = str(nonce) if isinstance(nonce, int) else nonce
    return TranscriptRecord(room, int(seq), int(stamp), sender, nonce, signature, line)


# -------------------------------------------------------------------------------- nonce order


@dataclass(frozen=True, slots=True)
class NonceViolation(ReadMapping):
    """A signer's record whose nonce is not above that signer's previous one in the same room.

    The venue only stores a signed message whose nonce is strictly greater than the signer's
    newest in that room, so an export showing otherwise has been reordered or spliced.
    """

    room: str
    sender: str
    index: int
    previous_index: int
    nonce: str
    previous_nonce: str


def _nonce_key(nonce: str) -> tuple[int, str]:
    # Canonical decimal has no leading zeros, so length-then-text orders like the integers
    # (and needs no int conversion, which Python caps at a few thousand digits).
    return len(nonce), nonce


def check_nonce_order(records: Sequence[object] | Iterable[object]) -> list[NonceViolation]:
    """Violations of strictly increasing nonces per (room, sender) among verified records.

    An equal nonce is a violation too: the venue refuses a replayed nonce.
    """
    last: dict[tuple[str, str], tuple[int, str]] = {}
    violations: list[NonceViolation] = []
    for index, record in enumerate(records):
        fields = _record_fields(record)
        if _verify_fields(fields) is not None:
            continue
        assert fields is not None
        room, sender, nonce = fields[0], fields[4], str(fields[5])
        scope = (room, sender)
        previous = last.get(scope)
        if previous is not None and _nonce_key(nonce) <= _nonce_key(previous[1]):
            violations.append(
                NonceViolation(room, sender, index, previous[0], nonce, previous[1])
            )
        last[scope] = (index, nonce)
    return violations


__all__ = [
    "MAX_SAFE_INTEGER",
    "RECORD_NONCE_RE",
    "ROOM_BINDINGS",
    "SIGNATURE_RE",
    "TIMESTAMP_RE",
    "TRANSCRIPT_ROOM_RE",
    "Fold",
    "FoldStep",
    "Handshake",
    "NonceViolation",
    "RoomBinding",
    "RunningFold",
    "TranscriptRecord",
    "VerifyResult",
    "check_nonce_order",
    "find_contract_handshake",
    "fold_transcript",
    "parse_timestamp_ms",
    "parse_transcript_export",
    "signed_message",
    "transcript_record",
    "verify_transcript_record",
]
