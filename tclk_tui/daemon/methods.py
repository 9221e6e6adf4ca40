"""What the control socket serves: the registry's commands, answered as `execute` answers.

A method is a command's name and its params object the command's params, so a face going
through the socket gets exactly what it would get in-process. A refusal becomes a JSON-RPC error
whose `data` is the command's error (`{"kind", "message", ...}`), which the face rebuilds.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from tclk_tui.daemon.bridge import port_call
from tclk_tui.daemon.server import Dispatch
from tclk_tui.daemon.wire import INVALID_PARAMS, METHOD_NOT_FOUND, REFUSED, RpcError
from tclk_tui.engine.commands import REGISTRY, CommandError, execute
from tclk_tui.engine.wallet import Wallet

log = logging.getLogger("tclk_tui.daemon")


def rpc_error(exc: CommandError) -> RpcError:
    return RpcError(INVALID_PARAMS if exc.kind == "usage" else REFUSED, exc.message,
                    exc.to_dict())


def make_dispatch(wallet: Wallet) -> Dispatch:
    """The socket's engine methods: the registry's commands and `port.call` for an attached
    app. Engine actions run one at a time, so two clients never interleave inside one."""
    engine_lock = asyncio.Lock()

    async def dispatch(method: str, params: dict[str, Any]) -> Any:
        if method == "port.call":
            return await port_call(wallet, params, engine_lock)
        if method not in REGISTRY:
            raise RpcError(METHOD_NOT_FOUND, f"no method {method!r}",
                           {"kind": "usage", "message": f"no command {method!r}"})
        try:
            async with engine_lock:
                return await execute(wallet, method, params)
        except CommandError as exc:
            log.info("refused %s (%s): %s", method, exc.kind, exc.message)
            raise rpc_error(exc) from None

    return dispatch
