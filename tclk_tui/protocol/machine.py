"""The tclk/1 per-contract state machine, as tables.

Pure and fail-closed: `apply_frame` never raises, never mutates, and answers a rejection with the
very state object it was given plus the reference implementation's reason string. Transitions
are data (`NEXT_STATUS` and `RULES`: which statuses a frame type may arrive in, the ordered
guards that can refuse it, and the effect on success), so the whole protocol reads in one place
and a UI can ask "what may happen next" without re-deriving it.

Conformance checkers written against the reference read states by its camelCase names; every
value type here therefore also answers `obj["payerDid"]`, `obj["payer_did"]` and `.get(...)`.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final, Literal, cast

from tclk_tui.protocol.errors import FrameError, TclkError
from tclk_tui.protocol.frames import OfferFrame, validate_frame
from tclk_tui.protocol.ids import contract_id
from tclk_tui.protocol.locks import is_valid_statement, verify_secret
from tclk_tui.protocol.quoting import quote
from tclk_tui.protocol.rails import rail_in_offer

Status = Literal["proposed", "accepted", "locked", "claimed", "refunded", "cancelled"]

STATUSES: Final[tuple[str, ...]] = (
    "proposed",
    "accepted",
    "locked",
    "claimed",
    "refunded",
    "cancelled",
)
TERMINAL: Final[frozenset[str]] = frozenset({"claimed", "refunded", "cancelled"})

CLOCK_REASON: Final = "tclk: nowMs must be a finite non-negative number"
_REDACTED: Final = "<redacted>"


# --------------------------------------------------------------------------- mapping-style reads


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@cache
def _names(cls: type) -> dict[str, str]:
    """snake_case and camelCase spellings of every field, both mapped to the attribute."""
    table: dict[str, str] = {}
    for field in dataclasses.fields(cls):
        table[field.name] = field.name
        table[_camel(field.name)] = field.name
    return table


def _plain(value: Any, camel: bool) -> Any:
    """A copy the caller may mutate without reaching into a frozen value."""
    if isinstance(value, ReadMapping):
        return value.to_dict(camel=camel)
    if isinstance(value, list | tuple):
        return [_plain(item, camel) for item in value]
    if isinstance(value, dict):
        return copy.deepcopy(value)
    return value


class ReadMapping:
    """Read-only mapping access for frozen dataclasses (snake_case or camelCase keys)."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        name = self._spellings().get(key) if isinstance(key, str) else None
        if name is None:
            raise KeyError(key)
        return getattr(self, name)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._spellings()

    def _spellings(self) -> dict[str, str]:
        cls: type = type(self)  # a plain class object: the cache key
        return _names(cls)

    def keys(self) -> tuple[str, ...]:
        return tuple(field.name for field in dataclasses.fields(self))  # type: ignore[arg-type]

    def to_dict(self, *, camel: bool = False) -> dict[str, Any]:
        """Every field (None included) as a fresh dict; `camel=True` uses the reference's names."""
        return {
            (_camel(field.name) if camel else field.name): _plain(getattr(self, field.name), camel)
            for field in dataclasses.fields(self)  # type: ignore[arg-type]
        }


# --------------------------------------------------------------------------------- value types


@dataclass(frozen=True, slots=True, repr=False)
class ContractState(ReadMapping):
    """What the signed transcript has established about one contract so far.

    `secret` is public once a reveal is posted, but a state can be built from a local,
    unpublished reveal too, so the repr never shows it.
    """

    status: str
    offer: OfferFrame
    payer_did: str | None = None
    payee_did: str | None = None
    payer_key: str | None = None
    payee_key: str | None = None
    contract: str | None = None
    statement: str | None = None
    rail: str | None = None
    rail_ref: str | None = None
    presig: dict[str, Any] | None = None
    secret: str | None = None

    def __repr__(self) -> str:
        parts = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "secret" and value is not None:
                parts.append(f"secret={_REDACTED}")
            else:
                parts.append(f"{field.name}={value!r}")
        return f"ContractState({', '.join(parts)})"

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL


@dataclass(frozen=True, slots=True)
class Step(ReadMapping):
    """The answer to one frame: the (possibly unchanged) state, and why not when it is not ok."""

    state: ContractState
    ok: bool
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Outlook(ReadMapping):
    """Whether funding (a lock) would still be accepted, derived from status and clock only."""

    actionable: bool
    code: str
    ms_remaining: int | float
    reason: str


@dataclass(frozen=True, slots=True)
class LockTerms(ReadMapping):
    """The nine facts a settlement rail locks against."""

    contract: str
    lock: str
    statement: str
    amount: str
    asset: str
    payer: str
    payee: str
    claim_by_ms: int
    refund_after_ms: int

    def to_wire(self) -> dict[str, Any]:
        return self.to_dict(camel=True)


# ---------------------------------------------------------------------------------- the tables

Frame = Mapping[str, Any]
Now = int | float
Guard = Callable[[ContractState, Frame, Now], "str | None"]
Effect = Callable[[ContractState, Frame, str], ContractState]

#: (status, frame type) -> status after a successful frame. Receipts and heartbeats are
#: acknowledgements: they succeed without moving the contract.
NEXT_STATUS: Final[Mapping[tuple[str, str], str]] = {
    ("proposed", "accept"): "accepted",
    ("accepted", "lock"): "locked",
    ("locked", "reveal"): "claimed",
    ("locked", "refund"): "refunded",
    ("proposed", "cancel"): "cancelled",
    ("accepted", "cancel"): "cancelled",
    ("claimed", "receipt"): "claimed",
    ("refunded", "receipt"): "refunded",
    ("cancelled", "receipt"): "cancelled",
    ("accepted", "heartbeat"): "accepted",
    ("locked", "heartbeat"): "locked",
}

#: The status each frame type moves a contract to (an offer opens it as proposed): the steps of
#: a deal's timeline. Receipts and heartbeats move none, so they are not here.
MOVES_TO: Final[Mapping[str, str]] = {
    "offer": STATUSES[0],
    **{kind: after for (before, kind), after in NEXT_STATUS.items() if after != before},
}


def _same_contract(kind: str) -> Guard:
    def guard(state: ContractState, frame: Frame, now_ms: Now) -> str | None:
        if frame.get("contract") != state.contract:
            return f"{kind} names a different contract"
        return None

    return guard


def _same_rail_ref(kind: str) -> Guard:
    def guard(state: ContractState, frame: Frame, now_ms: Now) -> str | None:
        ref = frame.get("ref")
        if ref is not None and ref != state.rail_ref:
            return f"{kind} names a different rail ref"
        return None

    return guard


def _sender_is(side: Literal["payer", "payee"], message: str) -> Guard:
    def guard(state: ContractState, frame: Frame, now_ms: Now) -> str | None:
        expected = state.payer_did if side == "payer" else state.payee_did
        if expected is None or frame.get("from") != expected:
            return message
        return None

    return guard


def _sender_is_party(kind: str) -> Guard:
    message = f"{kind} from a non-party"

    def guard(state: ContractState, frame: Frame, now_ms: Now) -> str | None:
        # In `proposed` only the offerer is known, so the would-be acceptor is not yet a party.
        did = frame.get("from")
        if did is not None and did in (state.offer.get("from"), state.payer_did, state.payee_did):
            return None
        return message

    return guard


def _before_refund_window(message: str) -> Guard:
    def guard(state: ContractState, frame: Frame, now_ms: Now) -> str | None:
        return message if now_ms >= state.offer["refundAfterMs"] else None

    return guard


# accept ------------------------------------------------------------------------------------


def _accept_names_offer(state: ContractState, frame: Frame, now: Now) -> str | None:
    return None if frame["ref"] == state.offer["id"] else "accept.ref names a different offer"


def _accept_not_own(state: ContractState, frame: Frame, now: Now) -> str | None:
    return "cannot accept own offer" if frame["from"] == state.offer["from"] else None


def _accept_not_expired(state: ContractState, frame: Frame, now: Now) -> str | None:
    return "offer has expired" if now >= state.offer["expiresMs"] else None


def accept_core(frame: Frame) -> dict[str, Any]:
    """The part of an accept the contract id commits to (no `type`, no `contract`)."""
    core = {
        "from": frame["from"],
        "ref": frame["ref"],
        "statement": frame["statement"],
        "nonce": frame["nonce"],
    }
    if frame.get("paymentKey") is not None:
        core["paymentKey"] = frame["paymentKey"]
    return core


def _accept_contract_id(state: ContractState, frame: Frame, now: Now) -> str | None:
    if contract_id(state.offer, accept_core(frame)) != frame["contract"]:
        return "contract id mismatch"
    return None


def _accept_point_key(state: ContractState, frame: Frame, now: Now) -> str | None:
    if state.offer["lock"] == "point" and frame.get("paymentKey") is None:
        return "point locks require the acceptor's paymentKey"
    return None


def _accept_statement_fits(state: ContractState, frame: Frame, now: Now) -> str | None:
    lock = state.offer["lock"]
    if not is_valid_statement(lock, frame["statement"]):
        return f"statement does not fit a {lock} lock"
    return None


def _on_accept(state: ContractState, frame: Frame, status: str) -> ContractState:
    # The acceptor takes the role the offerer did not: a payee-role offer is accepted by the payer.
    acceptor = {"did": frame["from"], "key": frame.get("paymentKey")}
    sides = (
        {"payer_did": acceptor["did"], "payer_key": acceptor["key"]}
        if state.offer["role"] == "payee"
        else {"payee_did": acceptor["did"], "payee_key": acceptor["key"]}
    )
    return dataclasses.replace(
        state, status=status, contract=frame["contract"], statement=frame["statement"], **sides
    )


# lock / reveal / refund --------------------------------------------------------------------


def _lock_rail_offered(state: ContractState, frame: Frame, now: Now) -> str | None:
    rail = frame["rail"]
    if rail_in_offer(state.offer["rails"], rail):
        return None
    return f"rail {quote(rail)} was not offered"


def _on_lock(state: ContractState, frame: Frame, status: str) -> ContractState:
    presig = frame.get("presig")
    return dataclasses.replace(
        state,
        status=status,
        rail=frame["rail"],
        rail_ref=frame["ref"],
        presig=copy.deepcopy(dict(presig)) if presig is not None else None,
    )


def _reveal_opens(state: ContractState, frame: Frame, now: Now) -> str | None:
    if not verify_secret(state.offer["lock"], state.statement, frame["secret"]):
        return "secret does not open the statement"
    return None


def _on_reveal(state: ContractState, frame: Frame, status: str) -> ContractState:
    return dataclasses.replace(state, status=status, secret=frame["secret"])


def _refund_window_open(state: ContractState, frame: Frame, now: Now) -> str | None:
    return "refund window not open yet" if now < state.offer["refundAfterMs"] else None


# cancel ------------------------------------------------------------------------------------


def _cancel_contract(state: ContractState, frame: Frame, now: Now) -> str | None:
    # Before an accept there is no contract id to compare, so the field is ignored (reference).
    if state.status == "accepted" and frame.get("contract") != state.contract:
        return "cancel names a different contract"
    return None


# receipt -----------------------------------------------------------------------------------


def _receipt_outcome(state: ContractState, frame: Frame, now: Now) -> str | None:
    outcome = frame["outcome"]
    if outcome != state.status:
        return f"receipt outcome {quote(outcome)} does not match {state.status}"
    return None


def _receipt_rail(state: ContractState, frame: Frame, now: Now) -> str | None:
    rail = frame.get("rail")
    if rail is not None and state.rail is not None and rail != state.rail:
        return f"receipt rail {quote(rail)} does not match contract rail {state.rail}"
    return None


def _receipt_ref(state: ContractState, frame: Frame, now: Now) -> str | None:
    ref = frame.get("ref")
    if ref is not None and state.rail_ref is not None and ref != state.rail_ref:
        return "receipt ref does not match contract railRef"
    return None


def _receipt_cancelled_bare(state: ContractState, frame: Frame, now: Now) -> str | None:
    names_rail = frame.get("rail") is not None or frame.get("ref") is not None
    if state.status == "cancelled" and names_rail:
        return "receipt on cancelled contract cannot name a settlement rail"
    return None


def _set_status(state: ContractState, frame: Frame, status: str) -> ContractState:
    return dataclasses.replace(state, status=status)


def _unchanged(state: ContractState, frame: Frame, status: str) -> ContractState:
    return state


@dataclass(frozen=True, slots=True)
class Rule:
    """How one frame type is judged: its status gate, then its guards in order, then its effect."""

    frame_type: str
    wrong_status: Callable[[str], str]
    guards: tuple[Guard, ...]
    effect: Effect
    targets: Mapping[str, str] = dataclasses.field(init=False, repr=False, compare=False)
    """`NEXT_STATUS` for this frame type, by status: one lookup with no key to build."""

    def __post_init__(self) -> None:
        targets = {s: after for (s, t), after in NEXT_STATUS.items() if t == self.frame_type}
        object.__setattr__(self, "targets", targets)

    @property
    def from_statuses(self) -> frozenset[str]:
        return frozenset(s for (s, t) in NEXT_STATUS if t == self.frame_type)


def _in_status(kind: str) -> Callable[[str], str]:
    return lambda status: f"{kind} in status {status}"


RULES: Final[Mapping[str, Rule]] = {
    "accept": Rule(
        "accept",
        _in_status("accept"),
        (
            _accept_names_offer,
            _accept_not_own,
            _accept_not_expired,
            _accept_contract_id,
            _accept_point_key,
            _accept_statement_fits,
        ),
        _on_accept,
    ),
    "lock": Rule(
        "lock",
        _in_status("lock"),
        (
            _same_contract("lock"),
            _sender_is("payer", "only the payer locks"),
            _before_refund_window("refund window is already open"),
            _lock_rail_offered,
        ),
        _on_lock,
    ),
    "reveal": Rule(
        "reveal",
        _in_status("reveal"),
        (
            _same_contract("reveal"),
            _same_rail_ref("reveal"),
            _sender_is("payee", "only the payee reveals"),
            _before_refund_window("refund window is open"),
            _reveal_opens,
        ),
        _on_reveal,
    ),
    "refund": Rule(
        "refund",
        _in_status("refund"),
        (
            _same_contract("refund"),
            _same_rail_ref("refund"),
            _sender_is("payer", "only the payer refunds"),
            _refund_window_open,
        ),
        _set_status,
    ),
    "cancel": Rule(
        "cancel",
        _in_status("cancel"),
        (_cancel_contract, _sender_is_party("cancel")),
        _set_status,
    ),
    "receipt": Rule(
        "receipt",
        lambda status: "receipt before a terminal status",
        (
            _same_contract("receipt"),
            _sender_is_party("receipt"),
            _receipt_outcome,
            _receipt_rail,
            _receipt_ref,
            _receipt_cancelled_bare,
        ),
        _unchanged,
    ),
    "heartbeat": Rule(
        "heartbeat",
        _in_status("heartbeat"),
        (_same_contract("heartbeat"), _sender_is_party("heartbeat")),
        _unchanged,
    ),
}


# ------------------------------------------------------------------------------------ the API


def _clock_ok(now_ms: object) -> bool:
    if isinstance(now_ms, bool) or not isinstance(now_ms, int | float):
        return False
    if isinstance(now_ms, float) and not math.isfinite(now_ms):
        return False
    return now_ms >= 0


def _open_validated(offer: Mapping[str, Any]) -> ContractState:
    if offer.get("type") != "offer":
        kind = quote(offer.get("type"))
        raise FrameError(f"tclk: a contract opens from an offer frame, not {kind}")
    # Validated by the caller (`open_contract`) or read back from a state that was.
    own = cast("OfferFrame", copy.deepcopy(dict(offer)))
    key = own.get("paymentKey")
    if own["role"] == "payer":
        return ContractState("proposed", own, payer_did=own["from"], payer_key=key)
    return ContractState("proposed", own, payee_did=own["from"], payee_key=key)


def open_contract(offer: Mapping[str, Any]) -> ContractState:
    """A `proposed` contract from an offer; raises FrameError when the offer is not valid.

    The offer is copied, so later changes to the caller's dict cannot reach the state.
    """
    validate_frame(offer)
    return _open_validated(offer)


def _judge(state: ContractState, frame: Frame, now_ms: Now) -> tuple[ContractState, str | None]:
    """(next state, None) or (the same state, why not), after the clock and `validate_frame`
    checks. A plain pair, so a fold pays for no `Step` it would unpack at once."""
    try:
        kind = frame.get("type")
        if kind == "offer":
            return state, "contract is already open"
        rule = RULES.get(kind) if isinstance(kind, str) else None
        if rule is None:
            return state, f"tclk: unknown frame type: {quote(kind)}"
        target = rule.targets.get(state.status)  # NEXT_STATUS[(status, type)]
        if target is None:
            return state, rule.wrong_status(state.status)
        for guard in rule.guards:
            reason = guard(state, frame, now_ms)
            if reason is not None:
                return state, reason
        return rule.effect(state, frame, target), None
    except Exception as exc:  # fail closed: hostile input never escapes as an exception
        return state, f"tclk: frame could not be applied ({type(exc).__name__})"


def _apply_validated(state: ContractState, frame: Frame, now_ms: Now) -> Step:
    """`apply_frame` after the clock and `validate_frame` checks."""
    after, reason = _judge(state, frame, now_ms)
    return Step(after, reason is None, reason)


def apply_frame(state: ContractState, frame: object, now_ms: object) -> Step:
    """Judge one frame at `now_ms` (the record's venue time). Never raises, never mutates."""
    if not _clock_ok(now_ms):
        return Step(state, False, CLOCK_REASON)
    try:
        validate_frame(frame)
    except TclkError as exc:
        return Step(state, False, str(exc))
    except Exception as exc:
        return Step(state, False, f"tclk: frame could not be validated ({type(exc).__name__})")
    if not isinstance(state, ContractState):
        return Step(state, False, "tclk: state must be a ContractState")
    return _apply_validated(state, frame, now_ms)  # type: ignore[arg-type]


def funding_outlook(state: ContractState, now_ms: object) -> Outlook:
    """Whether a lock would still be accepted now, and for how long (no safety margin)."""
    if not _clock_ok(now_ms):
        return Outlook(False, "unreadable-clock", 0, CLOCK_REASON)
    now: int | float = now_ms  # type: ignore[assignment]
    status = state.status
    if status == "cancelled":
        return Outlook(False, "cancelled", 0, "contract was cancelled")
    if status in ("claimed", "refunded"):
        return Outlook(False, "settled", 0, f"contract is {status}")
    if status == "locked":
        return Outlook(False, "funded", 0, "contract is already funded")
    expires = state.offer["expiresMs"]
    refund_after = state.offer["refundAfterMs"]
    if status == "proposed":
        if now >= expires:
            return Outlook(False, "offer-expired", 0, "offer expired unaccepted")
        if now >= refund_after:
            return Outlook(
                False, "lapsed", 0, "refund window opened before the offer was accepted"
            )
        return Outlook(
            True,
            "awaiting-accept",
            min(expires, refund_after) - now,
            "offer is open and a lock would still be accepted",
        )
    if now >= refund_after:
        return Outlook(False, "lapsed", 0, "refund window opened with no lock on the contract")
    return Outlook(True, "open", refund_after - now, "accepted and a lock would still be accepted")


def lock_terms(state: ContractState) -> LockTerms:
    """The terms a rail locks against; works on any state that got past accept (even cancelled)."""
    if (
        state.contract is None
        or state.statement is None
        or state.payer_did is None
        or state.payee_did is None
    ):
        raise TclkError(f"tclk: contract is not accepted yet (status {state.status})")
    offer = state.offer
    return LockTerms(
        contract=state.contract,
        lock=offer["lock"],
        statement=state.statement,
        amount=offer["amount"],
        asset=offer["asset"],
        payer=state.payer_did,
        payee=state.payee_did,
        claim_by_ms=offer["claimByMs"],
        refund_after_ms=offer["refundAfterMs"],
    )


__all__ = [
    "CLOCK_REASON",
    "MOVES_TO",
    "NEXT_STATUS",
    "RULES",
    "STATUSES",
    "TERMINAL",
    "ContractState",
    "LockTerms",
    "Outlook",
    "ReadMapping",
    "Rule",
    "Status",
    "Step",
    "accept_core",
    "apply_frame",
    "funding_outlook",
    "lock_terms",
    "open_contract",
]
