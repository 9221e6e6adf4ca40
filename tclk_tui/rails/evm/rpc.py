"""JSON-RPC to an EVM node, failing closed.

The node is a stranger's server as far as the wallet is concerned (even a local one can be
misconfigured): every answer is shape-checked here, a transport failure or a stall is an error
with its own code, never an empty answer, and nothing a node says is trusted beyond what the
caller re-checks against the chain's own rules.
"""

from __future__ import annotations

import itertools
from typing import Any

import httpx

from tclk_tui.rails.base import SettlementError

__all__ = ["NodeClient", "hex_int"]

DEFAULT_TIMEOUT_S = 10.0


def hex_int(value: object, what: str) -> int:
    """A JSON-RPC quantity (`0x`-prefixed hex) as an int; a malformed one is the node's fault."""
    if not isinstance(value, str) or not value.startswith("0x") or len(value) > 66:
        raise SettlementError(f"tclk: evm node answered a malformed {what}", code="bad-node")
    try:
        return int(value, 16)
    except ValueError:
        raise SettlementError(f"tclk: evm node answered a malformed {what}",
                              code="bad-node") from None


class NodeClient:
    """One node URL; `call` returns the `result` member or raises SettlementError."""

    def __init__(self, url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.url = url
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(timeout_s), trust_env=False)
        self._ids = itertools.count(1)

    def __repr__(self) -> str:
        return f"NodeClient({self.url!r})"

    async def aclose(self) -> None:
        await self._http.aclose()

    async def call(self, method: str, *params: Any) -> Any:
        request_id = next(self._ids)
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": list(params)}
        try:
            response = await self._http.post(self.url, json=body)
        except httpx.TimeoutException:
            raise SettlementError(f"tclk: evm node at {self.url} did not answer {method} in "
                                  "time", code="node-stalled") from None
        except httpx.HTTPError as exc:
            raise SettlementError(f"tclk: evm node at {self.url} is unreachable "
                                  f"({type(exc).__name__})", code="node-unreachable") from None
        if response.status_code != 200:
            raise SettlementError(f"tclk: evm node answered HTTP {response.status_code} to "
                                  f"{method}", code="bad-node")
        try:
            reply = response.json()
        except ValueError:
            raise SettlementError(f"tclk: evm node answered {method} with something that is "
                                  "not JSON", code="bad-node") from None
        if not isinstance(reply, dict) or reply.get("id") != request_id:
            raise SettlementError(f"tclk: evm node answered {method} out of turn",
                                  code="bad-node")
        if "error" in reply:
            error = reply["error"]
            message = error.get("message") if isinstance(error, dict) else None
            text = message if isinstance(message, str) else "an error"
            raise SettlementError(f"tclk: evm node refused {method}: {text[:200]!r}",
                                  code="node-refused")
        if "result" not in reply:
            raise SettlementError(f"tclk: evm node answered {method} without a result",
                                  code="bad-node")
        return reply["result"]

    async def chain_id(self) -> int:
        return hex_int(await self.call("eth_chainId"), "chain id")

    async def block_number(self) -> int:
        return hex_int(await self.call("eth_blockNumber"), "block number")

    async def balance(self, address: str, block: str = "latest") -> int:
        return hex_int(await self.call("eth_getBalance", address, block), "balance")

    async def nonce(self, address: str, block: str = "pending") -> int:
        return hex_int(await self.call("eth_getTransactionCount", address, block), "nonce")

    async def eth_call(self, to: str, data: str, block: str = "latest") -> bytes:
        result = await self.call("eth_call", {"to": to, "data": data}, block)
        return _hex_bytes(result, "call result")

    async def code(self, address: str, block: str = "latest") -> bytes:
        return _hex_bytes(await self.call("eth_getCode", address, block), "contract code")

    async def block(self, number: int | str) -> dict:
        tag = hex(number) if isinstance(number, int) else number
        result = await self.call("eth_getBlockByNumber", tag, False)
        if not isinstance(result, dict):
            raise SettlementError(f"tclk: evm node has no block {tag}", code="bad-node")
        return result


def _hex_bytes(value: object, what: str) -> bytes:
    if not isinstance(value, str) or not value.startswith("0x"):
        raise SettlementError(f"tclk: evm node answered a malformed {what}", code="bad-node")
    try:
        return bytes.fromhex(value[2:])
    except ValueError:
        raise SettlementError(f"tclk: evm node answered a malformed {what}",
                              code="bad-node") from None
