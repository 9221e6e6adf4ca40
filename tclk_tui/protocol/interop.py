"""A2A and Virtuals ACP mappings: how a tclk/1 status reads in those protocols, and job refs.

An ACP phase change is never execution proof and ACP evaluation sits inside `locked`; these
maps only translate vocabulary for agents that already speak A2A or ACP.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from tclk_tui.protocol.canonical import MAX_SAFE_INTEGER, js_string
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.quoting import quote

A2A_TASK_STATES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "proposed": "submitted",
        "accepted": "submitted",
        "locked": "working",
        "claimed": "completed",
        "refunded": "failed",
        "cancelled": "canceled",  # A2A spells it with one l
    }
)

ACP_PHASES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "proposed": "request",
        "accepted": "negotiation",
        "locked": "transaction",
        "claimed": "completed",
        "refunded": "rejected",
        "cancelled": "rejected",
    }
)


def a2a_state(status: str) -> str:
    """The A2A task state for a tclk/1 status; TclkError for an unknown status."""
    try:
        return A2A_TASK_STATES[status]
    except (KeyError, TypeError):
        raise TclkError(f"tclk: unknown status: {quote(status)}") from None


def acp_phase(status: str) -> str:
    """The ACP phase for a tclk/1 status; TclkError for an unknown status."""
    try:
        return ACP_PHASES[status]
    except (KeyError, TypeError):
        raise TclkError(f"tclk: unknown status: {quote(status)}") from None


def a2a_job(task_id: str, context_id: str | None = None) -> dict[str, str]:
    """`job` for an A2A task. Not validated here: `validate_frame` checks it inside the offer."""
    job = {"proto": "a2a", "id": task_id}
    if context_id is not None:
        job["context"] = context_id
    return job


def acp_job(job_id: str | int | float) -> dict[str, str]:
    """`job` for an ACP job id. A number must be a safe integer, else it is refused.

    The offer and contract ids commit to the id's text, so a number that a double cannot carry
    exactly would bind the payment to a different job.
    """
    if isinstance(job_id, str):
        return {"proto": "acp", "id": job_id}
    if isinstance(job_id, bool) or not isinstance(job_id, int | float):
        raise TclkError("tclk: ACP job id must be a string or a safe integer")
    safe = (
        abs(job_id) <= MAX_SAFE_INTEGER
        if isinstance(job_id, int)
        else math.isfinite(job_id) and job_id.is_integer() and abs(job_id) <= MAX_SAFE_INTEGER
    )
    if not safe:
        raise TclkError(
            f"tclk: ACP job id {js_string(job_id)} is not a safe integer, so a number cannot "
            "carry it exactly — pass it as a decimal string. The offer and contract ids commit "
            "to this value, and a rounded one binds the payment to a different job"
        )
    return {"proto": "acp", "id": js_string(int(job_id))}
