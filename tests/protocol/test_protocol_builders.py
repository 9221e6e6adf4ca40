"""Builders: what they normalise, what they check, and that they reproduce the vectors."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tclk_tui.protocol.builders import (
    make_accept,
    make_cancel,
    make_heartbeat,
    make_lock,
    make_offer,
    make_receipt,
    make_refund,
    make_reveal,
    random_nonce,
)
from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.errors import FrameError, RailError
from tclk_tui.protocol.ids import contract_id, offer_id

from .test_protocol_frames import CONTRACT, G_HEX, GOLDEN, OFF_CURVE, PAYEE, PAYER, golden

HASH_STATEMENT = "0x" + "ab" * 32


def offer_fields(**overrides: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "from_": PAYER,
        "role": "payer",
        "amount": "1000000",
        "asset": "FLOP",
        "lock": "hash",
        "rails": ["flop-htlc", "x402"],
        "claim_by_ms": 1756703600000,
        "refund_after_ms": 1756707200000,
        "expires_ms": 1756700600000,
        "job": {"proto": "a2a", "id": "task-3f", "context": "ctx-1"},
        "nonce": "9f2c81d04c9e1f7a",
    }
    fields.update(overrides)
    return fields


def test_make_offer_reproduces_the_golden_offer() -> None:
    offer = make_offer(**offer_fields())
    assert offer == GOLDEN["offer"]["frame"]
    assert encode_frame(offer) == GOLDEN["offer"]["line"]


def test_make_offer_normalises_deduplicates_and_sorts_rails_before_the_id() -> None:
    offer = make_offer(**offer_fields(rails=["X402", " flop-htlc", "x402", "FLOP-HTLC"]))
    assert offer["rails"] == ["flop-htlc", "x402"]
    assert offer["id"] == GOLDEN["offer"]["frame"]["id"]
    assert make_offer(**offer_fields(rails=("PaperRail",)))["rails"] == ["paper"]


@pytest.mark.parametrize(
    ("rails", "kind", "message"),
    [
        (["custom"], "unknown", "tclk: unknown rail id: custom"),
        (["custom.rail"], "malformed", "tclk: malformed rail id: custom.rail"),
        ([], "malformed", "tclk: rails must be a non-empty array"),
    ],
)
def test_make_offer_rail_errors(rails: list[str], kind: str, message: str) -> None:
    with pytest.raises(RailError, match=f"^{re.escape(message)}$") as caught:
        make_offer(**offer_fields(rails=rails))
    assert caught.value.kind == kind


def test_make_offer_random_nonce_and_optional_fields() -> None:
    first = make_offer(**offer_fields(nonce=None, job=None))
    second = make_offer(**offer_fields(nonce=None, job=None))
    assert re.fullmatch(r"[0-9a-f]{16}", first["nonce"])
    assert first["nonce"] != second["nonce"]
    assert first["id"] == offer_id(first) != second["id"]
    assert "job" not in first and "paymentKey" not in first
    point = make_offer(**offer_fields(lock="point", payment_key=G_HEX))
    assert point["paymentKey"] == G_HEX


def test_make_offer_keeps_a_caller_nonce_verbatim_and_validates_it() -> None:
    with pytest.raises(FrameError, match=r"^tclk: nonce is malformed: ABCDEF01$"):
        make_offer(**offer_fields(nonce="ABCDEF01"))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"role": "boss"}, "tclk: role must be payer|payee"),
        ({"claim_by_ms": 1756707200000}, "tclk: claimByMs must be strictly before refundAfterMs"),
        ({"lock": "point"}, "tclk: point locks require paymentKey"),
        ({"payment_key": OFF_CURVE}, "tclk: paymentKey is not a valid secp256k1 point"),
        ({"job": {"proto": "a2a"}}, "tclk: missing field on job: id"),
        ({"amount": 5}, "tclk: amount must be a non-empty string"),
    ],
)
def test_make_offer_validates(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(FrameError, match=f"^{re.escape(message)}$"):
        make_offer(**offer_fields(**overrides))


def test_make_offer_does_not_share_the_callers_job_dict() -> None:
    job = {"proto": "a2a", "id": "x"}
    offer = make_offer(**offer_fields(job=job))
    job["id"] = "changed"
    assert offer["job"]["id"] == "x"


def test_random_nonce() -> None:
    assert re.fullmatch(r"[0-9a-f]{16}", random_nonce())


# --- accept ---------------------------------------------------------------------------------


def test_make_accept_reproduces_the_golden_accept() -> None:
    accept = make_accept(
        golden("offer"), from_=PAYEE, statement=HASH_STATEMENT, nonce="0011223344556677"
    )
    assert accept == GOLDEN["accept"]["frame"]
    assert accept["contract"] == CONTRACT
    assert encode_frame(accept) == GOLDEN["accept"]["line"]


def test_make_accept_random_nonce_and_payment_key_on_a_hash_lock() -> None:
    accept = make_accept(golden("offer"), from_=PAYEE, statement=HASH_STATEMENT, payment_key=G_HEX)
    assert re.fullmatch(r"[0-9a-f]{16}", accept["nonce"])
    assert accept["paymentKey"] == G_HEX
    assert accept["contract"] == contract_id(golden("offer"), accept)


def test_make_accept_check_order_and_messages() -> None:
    bad_offer = {**golden("offer"), "id": "0x" + "0" * 64}
    with pytest.raises(FrameError, match="offer id mismatch"):
        make_accept(bad_offer, from_=PAYER, statement="x")
    with pytest.raises(FrameError, match=r"^tclk: accept.from must differ from offer.from$"):
        make_accept(golden("offer"), from_=PAYER, statement="x")
    with pytest.raises(FrameError, match=r"^tclk: statement does not fit a hash lock: x$"):
        make_accept(golden("offer"), from_=PAYEE, statement="x")
    with pytest.raises(FrameError, match="does not fit a hash lock"):
        make_accept(golden("offer"), from_=PAYEE, statement=G_HEX)
    with pytest.raises(FrameError, match="does not fit a hash lock"):
        make_accept(golden("offer"), from_=PAYEE, statement=HASH_STATEMENT.upper())


def test_make_accept_point_lock_rules() -> None:
    point_offer = make_offer(**offer_fields(lock="point", payment_key=G_HEX))
    with pytest.raises(FrameError, match=r"^tclk: statement does not fit a point lock: "):
        make_accept(point_offer, from_=PAYEE, statement=HASH_STATEMENT)
    with pytest.raises(FrameError, match="does not fit a point lock"):
        make_accept(point_offer, from_=PAYEE, statement=OFF_CURVE)
    with pytest.raises(FrameError, match=r"^tclk: point locks require the acceptor's paymentKey$"):
        make_accept(point_offer, from_=PAYEE, statement=G_HEX)
    accept = make_accept(point_offer, from_=PAYEE, statement=G_HEX, payment_key=G_HEX)
    assert accept["statement"] == G_HEX


def test_make_accept_validates_the_result() -> None:
    with pytest.raises(FrameError, match=r"^tclk: from is malformed: nobody$"):
        make_accept(golden("offer"), from_="nobody", statement=HASH_STATEMENT)


# --- heartbeat and the thin builders -------------------------------------------------------------


def test_deal_builders_reproduce_the_golden_vectors() -> None:
    built = {
        "lock": make_lock(from_=PAYER, contract=CONTRACT, rail="flop-htlc", ref="escrow-9001"),
        "reveal": make_reveal(
            from_=PAYEE, contract=CONTRACT, ref="escrow-9001", secret="0x" + "11" * 32
        ),
        "refund": make_refund(
            from_=PAYER, contract=CONTRACT, ref="escrow-9001", reason="claim window elapsed"
        ),
        "cancel": make_cancel(from_=PAYER, contract=CONTRACT, reason="counterparty unresponsive"),
        "receipt": make_receipt(
            from_=PAYEE, contract=CONTRACT, outcome="claimed", rail="flop-htlc", ref="escrow-9001"
        ),
        "heartbeat": make_heartbeat(
            from_=PAYER, contract=CONTRACT, nonce="aa11bb22cc33dd44", note="still here"
        ),
    }
    for kind, frame in built.items():
        assert frame == GOLDEN[kind]["frame"], kind
        assert encode_frame(frame) == GOLDEN[kind]["line"], kind


def test_optional_fields_are_absent_when_not_given() -> None:
    assert "presig" not in make_lock(from_=PAYER, contract=CONTRACT, rail="x402", ref="r")
    assert "reason" not in make_refund(from_=PAYER, contract=CONTRACT, ref="r")
    assert "reason" not in make_cancel(from_=PAYER, contract=CONTRACT)
    receipt = make_receipt(from_=PAYER, contract=CONTRACT, outcome="cancelled")
    assert "rail" not in receipt and "ref" not in receipt
    heartbeat = make_heartbeat(from_=PAYER, contract=CONTRACT)
    assert "note" not in heartbeat
    assert re.fullmatch(r"[0-9a-f]{16}", heartbeat["nonce"])


def test_reveal_and_refund_require_ref() -> None:
    with pytest.raises(TypeError):
        make_reveal(from_=PAYEE, contract=CONTRACT, secret="0x" + "11" * 32)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        make_refund(from_=PAYER, contract=CONTRACT)  # type: ignore[call-arg]


def test_builders_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        make_cancel(PAYER, CONTRACT)  # type: ignore[misc]


def test_lock_and_receipt_rails_are_normalised() -> None:
    assert make_lock(from_=PAYER, contract=CONTRACT, rail="PaperRail", ref="r")["rail"] == "paper"
    receipt = make_receipt(from_=PAYER, contract=CONTRACT, outcome="claimed", rail=" X402 ")
    assert receipt["rail"] == "x402"
    with pytest.raises(RailError, match="unknown rail id: custom") as caught:
        make_lock(from_=PAYER, contract=CONTRACT, rail="custom", ref="r")
    assert caught.value.kind == "unknown"


def test_make_lock_with_presig_copies_it() -> None:
    presig = {"nonce": G_HEX, "s": "0x" + "12" * 32}
    frame = make_lock(from_=PAYER, contract=CONTRACT, rail="flop-htlc", ref="r", presig=presig)
    presig["s"] = "0x00"
    assert frame["presig"]["s"] == "0x" + "12" * 32
    encode_frame(frame)


def test_make_reveal_never_echoes_a_malformed_secret() -> None:
    secret = "0x" + "AB" * 32  # a real secret in the wrong case is still a secret
    with pytest.raises(FrameError) as caught:
        make_reveal(from_=PAYEE, contract=CONTRACT, ref="r", secret=secret)
    assert "AB" not in str(caught.value)
    assert str(caught.value).startswith("tclk: secret is malformed")
    with pytest.raises(FrameError, match=r"^tclk: secret must be a non-empty string$"):
        make_reveal(from_=PAYEE, contract=CONTRACT, ref="r", secret="")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: make_lock(from_=PAYER, contract="x", rail="x402", ref="r"),
            "contract is malformed: x",
        ),
        (
            lambda: make_lock(from_=PAYER, contract=CONTRACT, rail="x402", ref=""),
            "ref must be a non-empty string",
        ),
        (
            lambda: make_refund(from_=PAYER, contract=CONTRACT, ref="r", reason=""),
            "reason must be a non-empty string",
        ),
        (lambda: make_cancel(from_="x", contract=CONTRACT), "from is malformed: x"),
        (
            lambda: make_receipt(from_=PAYER, contract=CONTRACT, outcome="won"),
            "outcome must be claimed|refunded|cancelled",
        ),
        (
            lambda: make_heartbeat(from_=PAYER, contract=CONTRACT, nonce="xyz"),
            "nonce is malformed: xyz",
        ),
        (
            lambda: make_heartbeat(from_=PAYER, contract=CONTRACT, note=""),
            "note must be a non-empty string",
        ),
    ],
)
def test_thin_builders_validate(call: Any, message: str) -> None:
    with pytest.raises(FrameError, match=re.escape("tclk: " + message)):
        call()
