"""What the control socket serves: the engine's commands, answered as the CLI's JSON.

A refusal becomes a JSON-RPC error whose `data` is the CLI's `{"kind", "message"}`, so a face
going through the socket prints exactly what it would print in-process.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from tclk_tui.daemon.bridge import port_call
from tclk_tui.daemon.server import Dispatch
from tclk_tui.daemon.wire import INVALID_PARAMS, METHOD_NOT_FOUND, REFUSED, RpcError
from tclk_tui.engine.commands import deal_summary
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.views import BoardQuery
from tclk_tui.engine.wallet import Wallet

log = logging.getLogger("tclk_tui.daemon")

Method = Callable[[Wallet, dict[str, Any]], Awaitable[Any]]


def _text(params: dict[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value:
        raise RpcError(INVALID_PARAMS, f"{name} is required (a string)",
                       {"kind": "usage", "message": f"{name} is required"})
    return value


async def _identity(wallet: Wallet, params: dict[str, Any]) -> Any:
    return {"did": wallet.did, "profile": wallet.profile, "venue": wallet.venue_url}


async def _deals(wallet: Wallet, params: dict[str, Any]) -> Any:
    return [deal_summary(v) for v in wallet.deals()]


async def _status(wallet: Wallet, params: dict[str, Any]) -> Any:
    return deal_summary(wallet.deal(_text(params, "deal")).view())


async def _board(wallet: Wallet, params: dict[str, Any]) -> Any:
    rows = wallet.board.query(BoardQuery(status=None if params.get("all") else "open",
                                         text=str(params.get("filter") or "")))
    return {"offers": [{"offer": r.offer_id, "sender": r.sender, "role": r.role,
                        "amount": r.amount, "asset": r.asset, "lock": r.lock,
                        "rails": list(r.rails), "status": r.status,
                        "expires_ms": r.expires_ms, "claim_by_ms": r.claim_by_ms,
                        "refund_after_ms": r.refund_after_ms, "mine": r.mine} for r in rows],
            "rejected": wallet.board.rejected()}


STAND_IN: dict[str, Method] = {"identity": _identity, "deals": _deals, "status": _status,
                               "board": _board}


def make_dispatch(wallet: Wallet) -> Dispatch:
    """The socket's engine methods: the registry's commands and `port.call` for an attached
    app. Engine actions run one at a time, so two clients never interleave inside one."""
    engine_lock = asyncio.Lock()

    async def dispatch(method: str, params: dict[str, Any]) -> Any:
        if method == "port.call":
            return await port_call(wallet, params, engine_lock)
        handler = STAND_IN.get(method)
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"no method {method!r}",
                           {"kind": "usage", "message": f"no command {method!r}"})
        try:
            async with engine_lock:
                return await handler(wallet, params)
        except GateRefused as exc:
            log.info("refused %s: %s", method, exc.reason)
            raise RpcError(REFUSED, exc.reason,
                           {"kind": "refused", "message": f"refused: {exc.reason}"}) from None
        except EngineError as exc:
            log.info("refused %s: %s", method, exc)
            raise RpcError(REFUSED, str(exc), {"kind": "refused", "message": str(exc)}) from None

    return dispatch
