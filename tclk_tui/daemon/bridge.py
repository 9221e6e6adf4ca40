"""The app's ports over the socket, daemon side: `port.call` runs one allowed port method.

An attached app drives the same screens as an in-process one, so it needs the same small
interfaces (`tclk_tui.tui.ports`): board queries, deal views, gate requests and confirmations,
the vault pane. Each is one call here, by name, from an allow-list per target: nothing outside
the ports is reachable, and every check stays the engine's (a confirmation is re-checked by the
deal whatever request object comes back).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

from tclk_tui.daemon.codec import Decoder, to_wire
from tclk_tui.daemon.wire import INVALID_PARAMS, METHOD_NOT_FOUND, REFUSED, RpcError
from tclk_tui.engine.arbitration import ArbitrationError
from tclk_tui.engine.commands import command_error
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.gates import GateFact, GateRefused, GateRequest
from tclk_tui.engine.views import BoardQuery, OfferDraft
from tclk_tui.engine.wallet import Wallet
from tclk_tui.protocol.errors import TclkError
from tclk_tui.technocore.errors import VenueError
from tclk_tui.vault.errors import VaultError

log = logging.getLogger("tclk_tui.daemon")

ALLOWED: dict[str, frozenset[str]] = {
    "wallet": frozenset({"validate_offer_draft", "post_offer", "accept_offer", "deals",
                         "venue_budget", "take_alerts",
                         "vault_status", "held_secrets", "request_seed_backup",
                         "confirm_seed_backup", "request_seed_restore", "confirm_seed_restore",
                         "request_secret_reveal", "confirm_secret_reveal"}),
    "board": frozenset({"query", "listing", "rows", "get", "rejected", "__len__"}),
    "deal": frozenset({"view", "request_lock", "request_reveal", "request_cancel",
                       "request_refund", "confirm", "heartbeat", "receipt"}),
    "arbitration": frozenset({"split", "combine", "commit_vote", "verify_vote", "tally"}),
    "settings": frozenset({"get_setting", "set_setting"}),
}
SETTINGS = frozenset({"theme"})  # the app remembers its theme in the owner's journal
# Exceptions an attached face rebuilds by name, so it reacts exactly as in-process.
RAISED: tuple[type[Exception], ...] = (GateRefused, ArbitrationError, VaultError, VenueError,
                                       TclkError, EngineError)
_ARGS = Decoder(BoardQuery, OfferDraft, GateRequest, GateFact)


def _target(wallet: Wallet, target: str, params: dict[str, Any]) -> Any:
    if target == "wallet":
        return wallet
    if target == "board":
        return wallet.board
    if target == "arbitration":
        return wallet.arbitration
    if target == "settings":
        return wallet.journal
    deal = params.get("deal")
    if not isinstance(deal, str):
        raise RpcError(INVALID_PARAMS, "deal is required")
    return wallet.deal(deal)


def _arg(value: Any) -> Any:
    if isinstance(value, dict) and "type" in value:
        return _ARGS.decode(value)
    return value


async def port_call(wallet: Wallet, params: dict[str, Any], engine_lock: asyncio.Lock) -> Any:
    """One port method; a call that awaits the engine queues behind other engine actions."""
    target, name = params.get("target"), params.get("name")
    if not isinstance(target, str) or not isinstance(name, str) \
            or name not in ALLOWED.get(target, ()):
        raise RpcError(METHOD_NOT_FOUND, f"no port method {target}.{name}")
    args = params.get("args") or []
    kwargs = params.get("kwargs") or {}
    if not isinstance(args, list) or not isinstance(kwargs, dict):
        raise RpcError(INVALID_PARAMS, "args must be a list and kwargs an object")
    if target == "settings" and (not args or args[0] not in SETTINGS):
        raise RpcError(INVALID_PARAMS, "only the app's own settings can be read or written")
    try:
        args = [_arg(a) for a in args]
        kwargs = {str(k): _arg(v) for k, v in kwargs.items()}
        result = getattr(_target(wallet, target, params), name)(*args, **kwargs)
        if inspect.isawaitable(result):
            async with engine_lock:
                result = await result
    except RpcError:
        raise
    except (TypeError, ValueError) as exc:
        if isinstance(exc, RAISED):
            raise _refusal(exc, f"{target}.{name}") from None
        raise RpcError(INVALID_PARAMS, f"{target}.{name}: bad arguments") from None
    except RAISED as exc:
        raise _refusal(exc, f"{target}.{name}") from None
    return to_wire(result)


def _refusal(exc: Exception, what: str) -> RpcError:
    """The refusal as the registry maps it (`command_error`: its kind), in the exception's own
    words and with its class's name, so the attached face raises what an in-process one
    would (a gate's reason without the registry's `refused:` before it)."""
    message = exc.reason if isinstance(exc, GateRefused) else str(exc)
    kind = command_error(exc).kind
    log.info("refused %s (%s): %s", what, kind, message)
    name = next(c.__name__ for c in RAISED if isinstance(exc, c))
    return RpcError(REFUSED, message, {"kind": kind, "message": message, "exception": name})
