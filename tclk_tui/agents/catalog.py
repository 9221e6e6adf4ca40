"""The tools an agent may be granted: names, descriptions and parameters, one per engine command.

Kept apart from the desk (and free of engine imports) so a transport process, like the MCP
server on stdio, can list the granted tools and check a grant without loading the engine.
"""

from __future__ import annotations

from tclk_tui.agents.tools import Param

DEAL_TOOLS = ("lock", "reveal", "refund", "cancel", "heartbeat", "receipt")

_DEAL = Param("deal", "string", "the deal id (the offer id) or a unique prefix", required=True)
_WAIT = Param("wait_s", "integer", "under an `ask` policy, seconds to wait for the operator "
              "(0: answer pending at once)")

TOOLS: tuple[tuple[str, str, tuple[Param, ...], bool], ...] = (
    ("board", "List offers on the board (open ones unless all=true).",
     (Param("all", "boolean", "include accepted, expired and cancelled offers"),
      Param("filter", "string", "text filter"),
      Param("limit", "integer", "at most this many rows (default 50, max 200)")), False),
    ("offer", "Post an offer to pay (role=payer) or to be paid (role=payee).",
     (Param("role", "string", "our side", required=True, enum=("payer", "payee")),
      Param("amount", "string", "whole minimal units, no leading 0", required=True),
      Param("asset", "string", "asset code", required=True),
      Param("lock", "string", "lock kind", enum=("hash", "point")),
      Param("rails", "string", "comma-separated rail ids", required=True),
      Param("claim_in_s", "integer", "seconds until claimByMs (default 3600)"),
      Param("refund_gap_s", "integer", "seconds from claimByMs to refundAfterMs"),
      Param("expires_in_s", "integer", "seconds until the offer expires (default 600)"),
      Param("job", "string", "proto:id of the job this pays for")), False),
    ("accept", "Accept an offer from the board.",
     (Param("offer", "string", "the offer id", required=True),
      Param("rail", "string", "the rail to settle on")), False),
    ("status", "One deal's state, the actions open to us, and its transcript.", (_DEAL,), False),
    ("deals", "List this wallet's deals.", (), False),
    ("lock", "Lock the payment on a rail (payer). Gated.",
     (_DEAL, Param("rail", "string", "the rail to lock on"), _WAIT), True),
    ("reveal", "Reveal the secret to claim a verified lock (payee). Gated.",
     (_DEAL, Param("acknowledge_late", "boolean", "accept the risk of a reveal past claimByMs"),
      _WAIT), True),
    ("refund", "Refund a lock once the refund window is open (payer). Gated.",
     (_DEAL, _WAIT), True),
    ("cancel", "Cancel a deal before any lock. Gated.", (_DEAL, _WAIT), True),
    ("heartbeat", "Tell the counterparty we are alive, with an optional note.",
     (_DEAL, Param("note", "string", "a short note")), False),
    ("receipt", "Post the receipt of a settled deal.", (_DEAL,), False),
    ("audit", "Fold the venue's exports of the deal's rooms and compare with our state.",
     (_DEAL,), False),
    ("rails", "The settlement rails this wallet can use.", (), False),
    ("approval", "The outcome of an approval this agent is waiting for.",
     (Param("approval", "string", "the approval id", required=True),), False),
)
TOOL_NAMES = frozenset(t[0] for t in TOOLS)


__all__ = ["DEAL_TOOLS", "TOOLS", "TOOL_NAMES"]
