"""What the control socket serves: the registry's commands, and the door an attached app uses.

A method named after a command is that command, its params object the command's params,
answered as `execute` answers: a face going through the socket gets exactly what it would get
in-process. An attached app goes through the same registry by `door.run` (the command's typed
answer, on the wire as `codec.to_wire` writes it) and `door.state` (a gated command's request,
the dry run), and reads by `door.view`: the read-only views `engine.door.LocalDoor` answers,
by name, from an allow-list. Nothing else of the engine is reachable. A refusal becomes a
JSON-RPC error whose `data` is the command's error (`{"kind", "message", ...}`), which the
face rebuilds.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from tclk_tui.daemon.codec import Decoder, to_wire
from tclk_tui.daemon.server import Dispatch
from tclk_tui.daemon.wire import INVALID_PARAMS, METHOD_NOT_FOUND, REFUSED, RpcError
from tclk_tui.engine import commands
from tclk_tui.engine.commands import REGISTRY, CommandError, command_error, execute
from tclk_tui.engine.door import VIEWS, LocalDoor
from tclk_tui.engine.views import BoardQuery, OfferDraft
from tclk_tui.engine.wallet import Wallet

log = logging.getLogger("tclk_tui.daemon")

_ARGS = Decoder(BoardQuery, OfferDraft)


def rpc_error(exc: CommandError) -> RpcError:
    return RpcError(INVALID_PARAMS if exc.kind == "usage" else REFUSED, exc.message,
                    exc.to_dict())


def views(wallet: Wallet) -> dict[str, Callable[..., Any]]:
    """The read-only views an attached app may ask by `door.view`, by name: the door's own
    (`engine.door.VIEWS`), and the board's, whose `listing` and `rows` let it hold the rows it
    has and fetch only what changed."""
    door = LocalDoor(wallet)
    board = wallet.board
    return {
        **{name: getattr(door, name) for name in VIEWS},
        "serves_referee": lambda: door.serves_referee,
        "board.listing": board.listing, "board.rows": board.rows, "board.get": board.get,
        "board.rejected": board.rejected, "board.size": board.__len__,
    }


def _named(params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    name, given = params.get("name"), params.get("params")
    if not isinstance(name, str) or not isinstance(given, dict | None):
        raise RpcError(INVALID_PARAMS, "name must be a string and params an object")
    return name, given or {}


def _view(table: dict[str, Callable[..., Any]], params: dict[str, Any]) -> Any:
    name, args = params.get("name"), params.get("args") or []
    if not isinstance(name, str) or name not in table:
        raise RpcError(METHOD_NOT_FOUND, f"no view {name!r}")
    if not isinstance(args, list):
        raise RpcError(INVALID_PARAMS, "args must be a list")
    try:
        args = [_ARGS.decode(a) if isinstance(a, dict) and "type" in a else a for a in args]
        return table[name](*args)
    except TypeError:
        raise RpcError(INVALID_PARAMS, f"{name}: bad arguments") from None
    except Exception as exc:  # a refusal in its own words, else only its type
        raise rpc_error(command_error(exc)) from None


def make_dispatch(wallet: Wallet) -> Dispatch:
    """The socket's engine methods: the registry's commands, and the door for an attached app.
    Engine actions run one at a time, so two clients never interleave inside one."""
    engine_lock = asyncio.Lock()
    table = views(wallet)

    async def dispatch(method: str, params: dict[str, Any]) -> Any:
        if method == "door.view":
            return to_wire(_view(table, params))
        try:
            if method == "door.state":
                return to_wire(commands.state(wallet, *_named(params)))
            if method == "door.run":
                name, given = _named(params)
                async with engine_lock:
                    return to_wire(await commands.run(wallet, name, given))
            if method not in REGISTRY:
                raise RpcError(METHOD_NOT_FOUND, f"no method {method!r}",
                               {"kind": "usage", "message": f"no command {method!r}"})
            async with engine_lock:
                return await execute(wallet, method, params)
        except CommandError as exc:
            log.info("refused %s (%s): %s", method, exc.kind, exc.message)
            raise rpc_error(exc) from None

    return dispatch
