"""A2A and ACP vocabulary maps and job builders."""

from __future__ import annotations

import pytest

from tclk_tui.protocol.builders import make_offer
from tclk_tui.protocol.errors import FrameError, TclkError
from tclk_tui.protocol.interop import a2a_job, a2a_state, acp_job, acp_phase

from .test_protocol_frames import PAYER

TABLE = [
    ("proposed", "submitted", "request"),
    ("accepted", "submitted", "negotiation"),
    ("locked", "working", "transaction"),
    ("claimed", "completed", "completed"),
    ("refunded", "failed", "rejected"),
    ("cancelled", "canceled", "rejected"),
]


@pytest.mark.parametrize(("status", "a2a", "acp"), TABLE)
def test_status_maps(status: str, a2a: str, acp: str) -> None:
    assert a2a_state(status) == a2a
    assert acp_phase(status) == acp


@pytest.mark.parametrize("status", ["LOCKED", "expired", "", None, ["locked"]])
def test_unknown_status_is_refused(status: object) -> None:
    with pytest.raises(TclkError, match="unknown status"):
        a2a_state(status)  # type: ignore[arg-type]
    with pytest.raises(TclkError, match="unknown status"):
        acp_phase(status)  # type: ignore[arg-type]


def test_a2a_job() -> None:
    assert a2a_job("task-3f") == {"proto": "a2a", "id": "task-3f"}
    assert a2a_job("task-3f", "ctx-1") == {"proto": "a2a", "id": "task-3f", "context": "ctx-1"}
    assert a2a_job("t", "") == {"proto": "a2a", "id": "t", "context": ""}  # not validated here


def test_an_empty_a2a_context_fails_later_in_the_offer() -> None:
    with pytest.raises(FrameError, match=r"job\.context must be a non-empty string"):
        make_offer(
            from_=PAYER,
            role="payer",
            amount="1",
            asset="FLOP",
            lock="hash",
            rails=["x402"],
            claim_by_ms=1,
            refund_after_ms=2,
            expires_ms=1,
            job=a2a_job("t", ""),
        )


@pytest.mark.parametrize(
    ("job_id", "text"),
    [
        (1234, "1234"),
        (-1, "-1"),
        (0, "0"),
        (1234.0, "1234"),
        (2**53 - 1, "9007199254740991"),
        (-(2**53 - 1), "-9007199254740991"),
        ("1234", "1234"),
        ("00012", "00012"),
        ("job-x", "job-x"),
        ("", ""),
    ],
)
def test_acp_job(job_id: int | float | str, text: str) -> None:
    assert acp_job(job_id) == {"proto": "acp", "id": text}


@pytest.mark.parametrize(
    ("job_id", "shown"),
    [
        (2**53, "9007199254740992"),
        (1.5, "1.5"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (1e21, "1e+21"),
    ],
)
def test_acp_job_refuses_numbers_a_double_cannot_carry(job_id: float, shown: str) -> None:
    with pytest.raises(TclkError) as caught:
        acp_job(job_id)
    assert str(caught.value) == (
        f"tclk: ACP job id {shown} is not a safe integer, so a number cannot carry it exactly "
        "— pass it as a decimal string. The offer and contract ids commit to this value, and a "
        "rounded one binds the payment to a different job"
    )


@pytest.mark.parametrize("job_id", [True, None, b"1", [1]])
def test_acp_job_refuses_other_types(job_id: object) -> None:
    with pytest.raises(TclkError):
        acp_job(job_id)  # type: ignore[arg-type]
