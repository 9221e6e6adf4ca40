"""Frame shapes and `validate_frame`: the reference's checks, in its order, with its messages.

Validation is of the parsed value, not of the bytes: it accepts anything JSON semantics make
equal (integral floats for ms fields, duplicate keys resolved by the parser), and legacy rail
spellings, because ids commit to what the sender hashed. Fail-closed divergences from the
reference, each pinned by a test:

- a `type` that is not a string is an unknown frame type (the reference stringifies it, so
  `["lock"]` passes as a lock, skips every type check, and later crashes its fold);
- `type` names inherited by JavaScript objects (`constructor`, `__proto__`, ...) are unknown
  frame types here (the reference reports `unknown field on <name>: type`);
- an `outcome` that is not a string is rejected (the reference coerces `["claimed"]`).

Kept on purpose: a `type` key nested inside `job` or `presig` is allowed with any value and is
hashed into the offer id, exactly as the reference does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal, NoReturn, NotRequired, TypedDict

from tclk_tui.protocol.canonical import MAX_SAFE_INTEGER, js_string
from tclk_tui.protocol.errors import FrameError
from tclk_tui.protocol.ids import offer_id
from tclk_tui.protocol.locks import is_valid_point_statement
from tclk_tui.protocol.quoting import quote
from tclk_tui.protocol.rails import LEGACY_RAIL_RE

# --- field grammar (all used with re.fullmatch; classes are spelled out, so ASCII-only) ------

DID_RE: Final = re.compile(r"did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}")
HEX32_RE: Final = re.compile(r"0x[0-9a-f]{64}")
HEX33_RE: Final = re.compile(r"0x[0-9a-f]{66}")
STATEMENT_RE: Final = re.compile(r"0x(?:[0-9a-f]{64}|[0-9a-f]{66})")
NONCE_RE: Final = re.compile(r"[0-9a-f]{8,64}")
AMOUNT_RE: Final = re.compile(r"[1-9][0-9]*")
ASSET_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,32}")
JOB_PROTO_RE: Final = re.compile(r"[a-z0-9][a-z0-9._-]{0,31}")
PRESIG_S_RE: Final = re.compile(r"0x(?:[0-9a-f]{2}){1,32}")
RAIL_RE: Final = LEGACY_RAIL_RE

ROLES: Final = ("payer", "payee")
LOCK_KINDS: Final = ("hash", "point")
OUTCOMES: Final = ("claimed", "refunded", "cancelled")
FRAME_TYPES: Final = (
    "offer",
    "accept",
    "lock",
    "reveal",
    "refund",
    "cancel",
    "receipt",
    "heartbeat",
)


@dataclass(frozen=True, slots=True)
class FieldSet:
    """Required keys in the order their absence is reported, then the optional ones."""

    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    allowed: frozenset[str] = field(init=False)
    required_set: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed", frozenset(self.required + self.optional))
        object.__setattr__(self, "required_set", frozenset(self.required))


FRAME_FIELDS: Final[Mapping[str, FieldSet]] = MappingProxyType(
    {
        "offer": FieldSet(
            (
                "type",
                "from",
                "role",
                "amount",
                "asset",
                "lock",
                "rails",
                "claimByMs",
                "refundAfterMs",
                "expiresMs",
                "nonce",
                "id",
            ),
            ("paymentKey", "job"),
        ),
        "accept": FieldSet(
            ("type", "from", "ref", "statement", "contract", "nonce"), ("paymentKey",)
        ),
        "lock": FieldSet(("type", "from", "contract", "rail", "ref"), ("presig",)),
        "reveal": FieldSet(("type", "from", "contract", "secret"), ("ref",)),
        "refund": FieldSet(("type", "from", "contract"), ("ref", "reason")),
        "cancel": FieldSet(("type", "from", "contract"), ("reason",)),
        "receipt": FieldSet(("type", "from", "contract", "outcome"), ("rail", "ref")),
        "heartbeat": FieldSet(("type", "from", "contract", "nonce"), ("note",)),
    }
)
"""Per frame type: required and optional keys (SPEC §3 table). Anything else is rejected."""

NESTED_FIELDS: Final[Mapping[str, FieldSet]] = MappingProxyType(
    {
        # `type` is admitted because the reference checks `{...job, type: "job"}`.
        "job": FieldSet(("type", "proto", "id"), ("context",)),
        "presig": FieldSet(("type", "nonce", "s"), ()),
    }
)


# --- typed shapes --------------------------------------------------------------------------


class Job(TypedDict):
    proto: str
    id: str
    context: NotRequired[str]


class Presig(TypedDict):
    nonce: str
    s: str


OfferFrame = TypedDict(
    "OfferFrame",
    {
        "type": Literal["offer"],
        "from": str,
        "role": Literal["payer", "payee"],
        "amount": str,
        "asset": str,
        "lock": Literal["hash", "point"],
        "rails": list[str],
        "claimByMs": int,
        "refundAfterMs": int,
        "expiresMs": int,
        "nonce": str,
        "id": str,
        "paymentKey": NotRequired[str],
        "job": NotRequired[Job],
    },
)
AcceptFrame = TypedDict(
    "AcceptFrame",
    {
        "type": Literal["accept"],
        "from": str,
        "ref": str,
        "statement": str,
        "contract": str,
        "nonce": str,
        "paymentKey": NotRequired[str],
    },
)
LockFrame = TypedDict(
    "LockFrame",
    {
        "type": Literal["lock"],
        "from": str,
        "contract": str,
        "rail": str,
        "ref": str,
        "presig": NotRequired[Presig],
    },
)
RevealFrame = TypedDict(
    "RevealFrame",
    {
        "type": Literal["reveal"],
        "from": str,
        "contract": str,
        "secret": str,
        "ref": NotRequired[str],
    },
)
RefundFrame = TypedDict(
    "RefundFrame",
    {
        "type": Literal["refund"],
        "from": str,
        "contract": str,
        "ref": NotRequired[str],
        "reason": NotRequired[str],
    },
)
CancelFrame = TypedDict(
    "CancelFrame",
    {"type": Literal["cancel"], "from": str, "contract": str, "reason": NotRequired[str]},
)
ReceiptFrame = TypedDict(
    "ReceiptFrame",
    {
        "type": Literal["receipt"],
        "from": str,
        "contract": str,
        "outcome": Literal["claimed", "refunded", "cancelled"],
        "rail": NotRequired[str],
        "ref": NotRequired[str],
    },
)
HeartbeatFrame = TypedDict(
    "HeartbeatFrame",
    {
        "type": Literal["heartbeat"],
        "from": str,
        "contract": str,
        "nonce": str,
        "note": NotRequired[str],
    },
)
Frame = (
    OfferFrame
    | AcceptFrame
    | LockFrame
    | RevealFrame
    | RefundFrame
    | CancelFrame
    | ReceiptFrame
    | HeartbeatFrame
)


# --- helpers -------------------------------------------------------------------------------

_ARRAY_INDEX_RE: Final = re.compile(r"0|[1-9][0-9]*")
_MAX_ARRAY_INDEX: Final = 2**32 - 2


def _is_array_index(key: str) -> bool:
    return _ARRAY_INDEX_RE.fullmatch(key) is not None and int(key) <= _MAX_ARRAY_INDEX


def js_own_keys(obj: Mapping[Any, Any]) -> list[str]:
    """Keys in JavaScript own-property order: array indices ascending, then insertion order."""
    keys = [key if isinstance(key, str) else js_string(key) for key in obj]
    indices = [key for key in keys if _is_array_index(key)]
    if not indices:
        return keys
    indices.sort(key=int)
    return indices + [key for key in keys if not _is_array_index(key)]


def is_unix_ms(value: object) -> bool:
    """`Number.isSafeInteger(value) && value > 0`; booleans are not numbers here."""
    if type(value) is bool:
        return False
    if isinstance(value, int):
        return 0 < value <= MAX_SAFE_INTEGER
    if isinstance(value, float):
        return math.isfinite(value) and value.is_integer() and 0 < value <= MAX_SAFE_INTEGER
    return False


def _fail(message: str) -> NoReturn:
    raise FrameError(message)


def _string(name: str, value: object) -> str:
    if not isinstance(value, str) or value == "":
        _fail(f"tclk: {name} must be a non-empty string")
    return value


def _pattern(name: str, value: object, pattern: re.Pattern[str]) -> None:
    if type(value) is str and value and pattern.fullmatch(value) is not None:
        return  # the usual case, settled without a second call
    text = _string(name, value)
    if pattern.fullmatch(text) is None:
        _fail(f"tclk: {name} is malformed: {quote(text)}")


def _unix_ms(name: str, value: object) -> None:
    if not is_unix_ms(value):
        _fail(f"tclk: {name} must be a positive unix-ms integer")


def _check_keys(where: str, obj: Mapping[Any, Any], fields: FieldSet) -> None:
    # The common case in two set operations: a dict holding only allowed keys and every
    # required one. Allowed names are never array indices, so key order only matters for
    # which unknown key is reported first, and then the loops below run.
    if (
        type(obj) is dict
        and fields.allowed.issuperset(obj)
        and obj.keys() >= fields.required_set
    ):
        return
    for key in js_own_keys(obj):
        if key not in fields.allowed:
            _fail(f"tclk: unknown field on {where}: {quote(key)}")
    for key in fields.required:
        if key not in obj:
            _fail(f"tclk: missing field on {where}: {key}")


def _check_nested(name: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        _fail(f"tclk: {name} must be an object")
    fields = NESTED_FIELDS[name]
    for key in js_own_keys(value):
        if key not in fields.allowed:
            _fail(f"tclk: unknown field on {name}: {quote(key)}")
    for key in fields.required:
        if key != "type" and key not in value:
            _fail(f"tclk: missing field on {name}: {key}")
    return value


def _payment_key(value: object) -> None:
    _pattern("paymentKey", value, HEX33_RE)
    if not is_valid_point_statement(value):
        _fail("tclk: paymentKey is not a valid secp256k1 point")


def _unknown_type_message(kind: object, present: bool) -> str:
    if not present:
        return "tclk: unknown frame type: undefined"
    shown = js_string(kind)
    if not isinstance(kind, str) and shown in FRAME_FIELDS:
        # The reference would accept this as a `<shown>` frame; say why this port does not.
        return f"tclk: unknown frame type: {quote(shown)} (type must be a string)"
    return f"tclk: unknown frame type: {quote(kind)}"


# --- per-type checks -----------------------------------------------------------------------


def _offer(frame: Mapping[str, Any]) -> None:
    role = frame["role"]
    if not isinstance(role, str) or role not in ROLES:
        _fail("tclk: role must be payer|payee")
    _pattern("amount", frame["amount"], AMOUNT_RE)
    _pattern("asset", frame["asset"], ASSET_RE)
    lock = frame["lock"]
    if not isinstance(lock, str) or lock not in LOCK_KINDS:
        _fail("tclk: lock must be hash|point")
    rails = frame["rails"]
    if not isinstance(rails, list | tuple) or len(rails) == 0:
        _fail("tclk: rails must be a non-empty array")
    for rail in rails:
        _pattern("rail", rail, RAIL_RE)
    _unix_ms("claimByMs", frame["claimByMs"])
    _unix_ms("refundAfterMs", frame["refundAfterMs"])
    _unix_ms("expiresMs", frame["expiresMs"])
    if frame["claimByMs"] >= frame["refundAfterMs"]:
        _fail("tclk: claimByMs must be strictly before refundAfterMs")
    if "paymentKey" in frame:
        _payment_key(frame["paymentKey"])
    elif lock == "point":
        _fail("tclk: point locks require paymentKey")
    if "job" in frame:
        job = _check_nested("job", frame["job"])
        _pattern("job.proto", job["proto"], JOB_PROTO_RE)
        _string("job.id", job["id"])
        if "context" in job:
            _string("job.context", job["context"])
    _pattern("nonce", frame["nonce"], NONCE_RE)
    expected = offer_id(frame)
    if frame["id"] != expected:
        _fail(f"tclk: offer id mismatch (expected {expected})")


def _accept(frame: Mapping[str, Any]) -> None:
    _pattern("ref", frame["ref"], HEX32_RE)
    _pattern("statement", frame["statement"], STATEMENT_RE)
    _pattern("contract", frame["contract"], HEX32_RE)
    if "paymentKey" in frame:
        _payment_key(frame["paymentKey"])
    _pattern("nonce", frame["nonce"], NONCE_RE)


def _lock(frame: Mapping[str, Any]) -> None:
    _pattern("contract", frame["contract"], HEX32_RE)
    _pattern("rail", frame["rail"], RAIL_RE)
    _string("ref", frame["ref"])
    if "presig" in frame:
        presig = _check_nested("presig", frame["presig"])
        _pattern("presig.nonce", presig["nonce"], HEX33_RE)
        _pattern("presig.s", presig["s"], PRESIG_S_RE)


def _reveal(frame: Mapping[str, Any]) -> None:
    _pattern("contract", frame["contract"], HEX32_RE)
    if "ref" in frame:
        _string("ref", frame["ref"])
    _pattern("secret", frame["secret"], HEX32_RE)


def _refund(frame: Mapping[str, Any]) -> None:
    _pattern("contract", frame["contract"], HEX32_RE)
    if "ref" in frame:
        _string("ref", frame["ref"])
    if "reason" in frame:
        _string("reason", frame["reason"])


def _cancel(frame: Mapping[str, Any]) -> None:
    _pattern("contract", frame["contract"], HEX32_RE)
    if "reason" in frame:
        _string("reason", frame["reason"])


def _receipt(frame: Mapping[str, Any]) -> None:
    _pattern("contract", frame["contract"], HEX32_RE)
    outcome = frame["outcome"]
    if not isinstance(outcome, str) or outcome not in OUTCOMES:
        _fail("tclk: outcome must be claimed|refunded|cancelled")
    if "rail" in frame:
        _pattern("rail", frame["rail"], RAIL_RE)
    if "ref" in frame:
        _string("ref", frame["ref"])


def _heartbeat(frame: Mapping[str, Any]) -> None:
    _pattern("contract", frame["contract"], HEX32_RE)
    _pattern("nonce", frame["nonce"], NONCE_RE)
    if "note" in frame:
        _string("note", frame["note"])


_TYPE_CHECKS: Final = MappingProxyType(
    {
        "offer": _offer,
        "accept": _accept,
        "lock": _lock,
        "reveal": _reveal,
        "refund": _refund,
        "cancel": _cancel,
        "receipt": _receipt,
        "heartbeat": _heartbeat,
    }
)


def validate_frame(value: Any) -> Any:
    """Return `value` unchanged if it is a valid tclk/1 frame; raise FrameError otherwise.

    Checks run in the reference's order and the first failure's message is the reference's
    (see the module docstring for the deliberate divergences). No coercion, no copy.
    """
    if type(value) is not dict and not isinstance(value, Mapping):
        _fail("tclk: frame must be an object")
    kind = value.get("type")
    if not isinstance(kind, str) or (fields := _FIELDS.get(kind)) is None:
        _fail(_unknown_type_message(kind, "type" in value))
    _check_keys(kind, value, fields)
    _pattern("from", value["from"], DID_RE)
    _CHECKS[kind](value)
    return value


# Plain dicts of the two tables above for the lookups every frame makes (a mapping proxy costs
# a little more per lookup); private, and never changed.
_FIELDS: Final[dict[str, FieldSet]] = dict(FRAME_FIELDS)
_CHECKS: Final[dict[str, Callable[[Mapping[str, Any]], None]]] = dict(_TYPE_CHECKS)
