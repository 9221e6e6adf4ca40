"""JSON-RPC 2.0 on the control socket: one JSON object per line, and the error codes we use.

Kept free of the engine so the client side imports only the standard library.
"""

from __future__ import annotations

import json
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REFUSED = -32000  # the engine refused: data = {"kind": ..., "message": ...}
MAX_LINE = 1 << 20  # one request line; anything longer is refused, never buffered forever
# What a face buffers of one line from the owner while reading a reply or a notification. Only
# requests are bounded by MAX_LINE: they may come from any process of this user and the owner
# must never buffer one forever, while a reply is the owner's own answer (a 20,000-offer board
# is some 10 MiB of JSON), so it is read whole however long it is.
MAX_REPLY_BUFFER = 1 << 30


class RpcError(Exception):
    """An error answer from the daemon; `kind`/`message` mirror the CLI's JSON error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    @property
    def kind(self) -> str:
        if isinstance(self.data, dict) and isinstance(self.data.get("kind"), str):
            return self.data["kind"]
        return {PARSE_ERROR: "protocol", INVALID_REQUEST: "protocol",
                METHOD_NOT_FOUND: "usage", INVALID_PARAMS: "usage"}.get(self.code, "internal")

    def to_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def dumps(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, separators=(",", ":"), sort_keys=True) + "\n").encode()


def request(id_: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    return dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}})


def result(id_: Any, value: Any) -> bytes:
    return dumps({"jsonrpc": "2.0", "id": id_, "result": value})


def error(id_: Any, err: RpcError) -> bytes:
    return dumps({"jsonrpc": "2.0", "id": id_, "error": err.to_error()})


def notification(method: str, params: dict[str, Any]) -> bytes:
    return dumps({"jsonrpc": "2.0", "method": method, "params": params})


def parse_request(line: bytes) -> tuple[Any, str, dict[str, Any]]:
    """(id, method, params) of one request line, or RpcError saying what is wrong with it.

    Only named params (an object) are accepted: every command's parameters have names.
    """
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        raise RpcError(PARSE_ERROR, "not JSON") from None
    if not isinstance(obj, dict) or obj.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, "not a JSON-RPC 2.0 request object")
    id_ = obj.get("id")
    if id_ is not None and (isinstance(id_, bool) or not isinstance(id_, int | str)):
        raise RpcError(INVALID_REQUEST, "id must be a number or a string")
    method = obj.get("method")
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, "method must be a non-empty string")
    params = obj.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "params must be an object of named parameters")
    return id_, method, params
