"""The fold's usual-record path against the fold as it was written before it: the plain
definition is kept here, and every transcript must fold to the same steps and the same state."""

from __future__ import annotations

import binascii
import dataclasses
from collections.abc import Iterable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl.bindings import crypto_sign_open

from tclk_tui.protocol.codec import decode_frame_reference, encode_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.machine import ContractState, _judge, _open_validated
from tclk_tui.protocol.naming import OFFER_ROOM, deal_room
from tclk_tui.protocol.quoting import quote
from tclk_tui.protocol.transcript import (
    _MAX_DID_CHARS,
    _URLSAFE,
    Fold,
    FoldStep,
    TranscriptRecord,
    _is_safe_index,
    _record_fields,
    _sender_key,
    fold_transcript,
    room_ok,
    signed_message,
)

from .test_protocol_transcript import (
    ACCEPT,
    CONTRACT,
    DEAL,
    LOCK,
    NOW,
    OFFER,
    PAYEE,
    PAYER,
    REVEAL,
    STRANGER,
    any_record,
    rec,
)

# --- the definition -------------------------------------------------------------------------


def reference_verify(fields: tuple[Any, ...] | None) -> str | None:
    if fields is None:
        return "record is not an object"
    room, seq, stamp, line, sender, nonce, signature = fields
    if not isinstance(room, str) or not room_ok(room):
        return "record has an invalid room name"
    if not _is_safe_index(seq):
        return "record seq must be a non-negative safe integer"
    if not _is_safe_index(stamp):
        return "record timestampMs must be a non-negative safe integer"
    if not isinstance(line, str):
        return "record line must be a string"
    if not isinstance(sender, str):
        return "record sender must be a string"
    if nonce is None or signature is None:
        return "record is unsigned"
    if type(nonce) is not str and isinstance(nonce, int) and not isinstance(nonce, bool):
        nonce = str(nonce)
    if not (
        isinstance(nonce, str)
        and nonce.isascii()
        and nonce.isdigit()
        and (nonce[0] != "0" or len(nonce) == 1)
    ):
        return "record nonce is not canonical decimal"
    if not isinstance(signature, str) or len(signature) != 86 or signature[85] not in "AQgw":
        return "record signature is not canonical base64url"
    try:
        raw = binascii.a2b_base64(
            signature.encode("ascii").translate(_URLSAFE) + b"==", strict_mode=True
        )
    except (UnicodeEncodeError, binascii.Error):
        return "record signature is not canonical base64url"
    public_key = _sender_key(sender) if len(sender) <= _MAX_DID_CHARS else None
    if public_key is None:
        return "record sender is not an Ed25519 did:key"
    try:
        crypto_sign_open(raw + signed_message(room, nonce, line), public_key)
    except Exception:
        return "record signature does not verify"
    return None


def reference_fold_one(
    state: ContractState | None, fields: tuple[Any, ...] | None, binding: str
) -> tuple[ContractState | None, str | None, bool, str | None]:
    reason = reference_verify(fields)
    if reason is not None:
        return state, None, False, reason
    assert fields is not None
    room, _seq, stamp, line, sender = fields[:5]
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
    if kind in ("offer", "accept") or state.contract is None or binding == "offer-room":
        expected = OFFER_ROOM
    else:
        expected = deal_room(state.contract)
    if room != expected:
        where = "tclk-offers" if expected == OFFER_ROOM else f"the derived deal room {expected}"
        return state, kind, False, f"{kind} must be posted in {where}"
    after, reason = _judge(state, frame, stamp)
    return after, kind, reason is None, reason


def reference_fold(records: Iterable[object], binding: str) -> Fold:
    state: ContractState | None = None
    steps: list[FoldStep] = []
    for index, record in enumerate(records):
        try:
            fields = _record_fields(record)
        except Exception:
            fields = None
        if fields is None:
            room, seq = "", -1
        else:
            room = fields[0] if isinstance(fields[0], str) else ""
            seq = fields[1] if _is_safe_index(fields[1]) else -1
            seq = int(seq)
        try:
            state, kind, ok, reason = reference_fold_one(state, fields, binding)
        except Exception as exc:
            failure = type(exc).__name__
            kind, ok, reason = None, False, f"tclk: record could not be folded ({failure})"
        steps.append(FoldStep(index, room, seq, kind, ok, reason))
    return Fold(state, tuple(steps))


# --- transcripts ----------------------------------------------------------------------------


def deal(heartbeats: int) -> list[TranscriptRecord]:
    records = [
        rec(OFFER_ROOM, NOW - 1, PAYER, OFFER, seq=1),
        rec(OFFER_ROOM, NOW, PAYEE, ACCEPT, seq=2),
        rec(DEAL, NOW + 1, PAYER, LOCK, seq=1),
    ]
    for index in range(heartbeats):
        sender = (PAYER, PAYEE)[index % 2]
        beat = {"type": "heartbeat", "from": sender, "contract": CONTRACT, "nonce": f"{index:08x}"}
        records.append(rec(DEAL, NOW + 2 + index, sender, beat, seq=2 + index))
    records.append(rec(DEAL, NOW + 3 + heartbeats, PAYEE, REVEAL, seq=3 + heartbeats))
    return records



def unset_record() -> TranscriptRecord:
    return object.__new__(TranscriptRecord)


class Text(str):
    """A str subclass: the usual path must leave it to the full checks."""


FIELD_SWAPS: dict[str, list[Any]] = {
    "room": ["", "BAD", DEAL, OFFER_ROOM, Text(DEAL), 5, None, "x" * 300],
    "seq": [-1, 2**53, 2**53 - 1, 0, 1.0, 2.5, True, "1", None, -(2**60)],
    "timestamp_ms": [-1, 2**53, 2**53 - 1, 0, NOW + 0.0, float("nan"), False, "1", None],
    "sender": [STRANGER, PAYER, PAYEE, "nick", "", Text(PAYER), None, 7, "did:key:" + "z" * 200],
    "nonce": ["0", "01", "", "٣", "1.0", 12, True, None, Text("5"), "9" * 30],
    "signature": ["A" * 86, "A" * 85 + "B", "+" * 86, "A" * 84 + "é" + "A", None, 3, ""],
    "line": ["", "tclk1 {}", encode_frame(LOCK), Text(encode_frame(LOCK)), None, "x\ud800"],
}


@st.composite
def mutated_deals(draw: st.DrawFn) -> list[Any]:
    records: list[Any] = list(deal(draw(st.integers(0, 6))))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(records) - 1))
        how = draw(st.sampled_from(["field", "field", "field", "flip", "mapping", "unset", "drop",
                                    "repeat"]))
        record = records[at]
        if not isinstance(record, TranscriptRecord) or not hasattr(record, "room"):
            continue  # a mapping, or an unset record: left as it is
        if how == "field":
            name = draw(st.sampled_from(sorted(FIELD_SWAPS)))
            value = draw(st.sampled_from(FIELD_SWAPS[name]))
            records[at] = dataclasses.replace(record, **{name: value})
        elif how == "flip" and isinstance(record.signature, str):
            where = draw(st.integers(0, 85))
            letter = draw(st.sampled_from("AQgw-_9z"))
            signature = record.signature[:where] + letter + record.signature[where + 1:]
            records[at] = dataclasses.replace(record, signature=signature)
        elif how == "mapping":
            records[at] = record.to_dict(camel=draw(st.booleans()))
        elif how == "unset":
            records[at] = unset_record()
        elif how == "drop":
            del records[at]
        else:
            records.insert(at, record)
    return records


bindings = st.sampled_from(["strict", "offer-room"])
SWAPS = [(name, value) for name, values in FIELD_SWAPS.items() for value in values]
HONEST = deal(4)


@pytest.mark.parametrize("binding", ["strict", "offer-room"])
@pytest.mark.parametrize(("name", "value"), SWAPS, ids=[f"{n}={v!r}"[:40] for n, v in SWAPS])
def test_one_field_swapped_late_in_a_deal_folds_as_the_definition_folds_it(
    name: str, value: Any, binding: str
) -> None:
    """Late, where the fold has already seen the room and both senders: the usual path's
    ground, so each swap must fall back to the full checks or be one they admit."""
    for at in (0, 2, len(HONEST) - 2):
        records: list[Any] = list(HONEST)
        records[at] = dataclasses.replace(records[at], **{name: value})
        assert fold_transcript(records, binding) == reference_fold(records, binding)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_deals(), bindings)
def test_a_mutated_deal_folds_as_the_definition_folds_it(records: list[Any], binding: str) -> None:
    assert fold_transcript(records, binding) == reference_fold(records, binding)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(any_record, max_size=12), bindings)
def test_any_records_fold_as_the_definition_folds_them(records: list[Any], binding: str) -> None:
    assert fold_transcript(records, binding) == reference_fold(records, binding)


def test_an_honest_deal_folds_to_claimed_on_both_paths() -> None:
    records = deal(4)
    fold = fold_transcript(records)
    assert fold == reference_fold(records, "strict")
    assert fold.state is not None and fold.state.status == "claimed"
    assert all(step.ok for step in fold.steps)


def test_unset_slots_are_a_record_that_is_not_an_object() -> None:
    records = [*deal(1), unset_record()]
    fold = fold_transcript(records)
    assert fold == reference_fold(records, "strict")
    assert fold.steps[-1].reason == "record is not an object"
