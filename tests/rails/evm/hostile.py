"""A lying JSON-RPC node on loopback: it forwards to a real anvil except for what it is told to
fake, so the rail's checks meet a node that answers well-formed lies."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

Fake = Callable[[dict], object]  # request -> result (or NotImplemented to forward)


@contextlib.contextmanager
def hostile_node(upstream: str, fakes: dict[str, Fake], *,
                 stall: bool = False) -> Iterator[tuple[str, list[dict]]]:
    """(url, requests seen). `stall` makes every request hang until the server stops."""
    seen: list[dict] = []
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            return None

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            if stall:
                stop.wait(30)
                return
            fake = fakes.get(body["method"])
            result = fake(body) if fake is not None else NotImplemented
            if result is NotImplemented:
                reply = httpx.post(upstream, json=body, trust_env=False).content
            else:
                reply = json.dumps({"jsonrpc": "2.0", "id": body["id"],
                                    "result": result}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
        time.sleep(0)
