"""Frame builders: keyword arguments in, validated frame dicts out.

`make_offer`, `make_accept` and `make_heartbeat` follow the reference library; the thin builders
for lock, reveal, refund, cancel and receipt follow its MCP server (reveal and refund take `ref`
as required; lock and receipt rails are normalised). Builders never encode: the emission rail
rules apply in `encode_frame`. Random nonces come from `secrets` and only when none is given.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any, cast

from tclk_tui.protocol.canonical import canonical_json
from tclk_tui.protocol.errors import FrameError
from tclk_tui.protocol.frames import (
    HEX32_RE,
    AcceptFrame,
    CancelFrame,
    HeartbeatFrame,
    LockFrame,
    OfferFrame,
    ReceiptFrame,
    RefundFrame,
    RevealFrame,
    validate_frame,
)
from tclk_tui.protocol.ids import contract_id, domain_hash, offer_id
from tclk_tui.protocol.locks import is_valid_statement
from tclk_tui.protocol.quoting import quote
from tclk_tui.protocol.rails import normalize_rail_id, normalize_rail_ids


def random_nonce() -> str:
    """16 lowercase hex chars (8 CSPRNG bytes), the reference's default frame nonce."""
    return secrets.token_hex(8)


def _optional(body: dict[str, Any], key: str, value: object) -> None:
    if value is not None:
        body[key] = value


def make_offer(
    fields: Mapping[str, Any] | None = None,
    /,
    *,
    from_: str = "",
    role: str = "",
    amount: str = "",
    asset: str = "",
    lock: str = "",
    rails: Sequence[str] = (),
    claim_by_ms: int = 0,
    refund_after_ms: int = 0,
    expires_ms: int = 0,
    payment_key: str | None = None,
    job: Mapping[str, Any] | None = None,
    nonce: str | None = None,
) -> OfferFrame:
    """A validated offer with its id; rails normalised, de-duplicated and sorted first.

    Called with keywords (snake_case), or like the reference's `makeOffer(fields)` with one
    mapping of wire-named fields, which is spread as given: an unknown key fails validation,
    and a caller-supplied `id` is hashed with the rest and then fails `offer id mismatch`.
    Raises RailError for a malformed or unknown rail and FrameError for anything else.
    """
    if fields is not None:
        spread: dict[str, Any] = {**fields, "type": "offer",
                                  "rails": normalize_rail_ids(fields.get("rails")),
                                  "nonce": random_nonce() if fields.get("nonce") is None
                                  else fields["nonce"]}
        spread["id"] = domain_hash("offer", canonical_json(spread))
        return cast(OfferFrame, validate_frame(spread))
    body: dict[str, Any] = {
        "type": "offer",
        "from": from_,
        "role": role,
        "amount": amount,
        "asset": asset,
        "lock": lock,
        "rails": normalize_rail_ids(rails),
        "claimByMs": claim_by_ms,
        "refundAfterMs": refund_after_ms,
        "expiresMs": expires_ms,
        "nonce": random_nonce() if nonce is None else nonce,
    }
    _optional(body, "paymentKey", payment_key)
    if job is not None:
        body["job"] = dict(job) if isinstance(job, Mapping) else job
    body["id"] = offer_id(body)
    return cast(OfferFrame, validate_frame(body))


def make_accept(
    offer: Mapping[str, Any],
    fields: Mapping[str, Any] | None = None,
    /,
    *,
    from_: str = "",
    statement: str = "",
    payment_key: str | None = None,
    nonce: str | None = None,
) -> AcceptFrame:
    """Accept `offer`: validates it, checks the statement fits its lock kind, derives the id.

    Keywords, or the reference's `makeAccept(offer, {from, statement, paymentKey?, nonce?})`.
    A point lock needs the acceptor's payment key. No expiry check happens here (that is the
    state machine's, with a clock).
    """
    if fields is not None:
        from_, statement = fields.get("from"), fields.get("statement")  # type: ignore[assignment]
        payment_key, nonce = fields.get("paymentKey"), fields.get("nonce")
    validate_frame(offer)
    if from_ == offer["from"]:
        raise FrameError("tclk: accept.from must differ from offer.from")
    if not is_valid_statement(offer["lock"], statement):
        raise FrameError(f"tclk: statement does not fit a {offer['lock']} lock: {quote(statement)}")
    if offer["lock"] == "point" and payment_key is None:
        raise FrameError("tclk: point locks require the acceptor's paymentKey")
    core: dict[str, Any] = {"from": from_, "ref": offer["id"], "statement": statement}
    _optional(core, "paymentKey", payment_key)
    core["nonce"] = random_nonce() if nonce is None else nonce
    frame = {"type": "accept", **core, "contract": contract_id(offer, core)}
    return cast(AcceptFrame, validate_frame(frame))


def make_heartbeat(
    fields: Mapping[str, Any] | None = None,
    /,
    *,
    from_: str = "",
    contract: str = "",
    nonce: str | None = None,
    note: str | None = None,
) -> HeartbeatFrame:
    """A liveness frame with a fresh nonce so repeats survive the venue's duplicate filter.

    Keywords, or the reference's `makeHeartbeat({from, contract, nonce?, note?})` spread as
    given (an unknown key fails validation).
    """
    if fields is not None:
        spread = {**fields, "type": "heartbeat",
                  "nonce": random_nonce() if fields.get("nonce") is None else fields["nonce"]}
        return cast(HeartbeatFrame, validate_frame(spread))
    frame: dict[str, Any] = {
        "type": "heartbeat",
        "from": from_,
        "contract": contract,
        "nonce": random_nonce() if nonce is None else nonce,
    }
    _optional(frame, "note", note)
    return cast(HeartbeatFrame, validate_frame(frame))


def make_lock(
    *,
    from_: str,
    contract: str,
    rail: str,
    ref: str,
    presig: Mapping[str, Any] | None = None,
) -> LockFrame:
    """Announce "the money is locked on this rail"; `rail` is normalised to canonical."""
    frame: dict[str, Any] = {
        "type": "lock",
        "from": from_,
        "contract": contract,
        "rail": normalize_rail_id(rail),
        "ref": ref,
    }
    if presig is not None:
        frame["presig"] = dict(presig) if isinstance(presig, Mapping) else presig
    return cast(LockFrame, validate_frame(frame))


def make_reveal(*, from_: str, contract: str, ref: str, secret: str) -> RevealFrame:
    """Publish the secret. `ref` is required for new senders (it must equal lock.ref).

    A malformed secret is reported without echoing it: it may be a real secret in the wrong
    case, and exception text ends up in logs.
    """
    if not isinstance(secret, str) or secret == "":
        raise FrameError("tclk: secret must be a non-empty string")
    if HEX32_RE.fullmatch(secret) is None:
        raise FrameError("tclk: secret is malformed (expected 0x + 64 lowercase hex)")
    frame = {"type": "reveal", "from": from_, "contract": contract, "ref": ref, "secret": secret}
    return cast(RevealFrame, validate_frame(frame))


def make_refund(*, from_: str, contract: str, ref: str, reason: str | None = None) -> RefundFrame:
    """Announce a refund after refundAfterMs; `ref` is required for new senders."""
    frame: dict[str, Any] = {"type": "refund", "from": from_, "contract": contract, "ref": ref}
    _optional(frame, "reason", reason)
    return cast(RefundFrame, validate_frame(frame))


def make_cancel(*, from_: str, contract: str, reason: str | None = None) -> CancelFrame:
    """Cancel before any lock exists."""
    frame: dict[str, Any] = {"type": "cancel", "from": from_, "contract": contract}
    _optional(frame, "reason", reason)
    return cast(CancelFrame, validate_frame(frame))


def make_receipt(
    *,
    from_: str,
    contract: str,
    outcome: str,
    rail: str | None = None,
    ref: str | None = None,
) -> ReceiptFrame:
    """Post-terminal acknowledgement; `rail`, if given, is normalised to its canonical id."""
    frame: dict[str, Any] = {
        "type": "receipt",
        "from": from_,
        "contract": contract,
        "outcome": outcome,
    }
    if rail is not None:
        frame["rail"] = normalize_rail_id(rail)
    _optional(frame, "ref", ref)
    return cast(ReceiptFrame, validate_frame(frame))
