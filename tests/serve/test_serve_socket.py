"""The terminal socket takes what a page sends and nothing else: malformed messages are
ignored, never the end of the session."""

from __future__ import annotations

import asyncio
import json

import aiohttp

from tests.serve.conftest import serving

JUNK = ["not json", "{}", "[]", "42", '["stdin", 5]', '["stdin"]', '["resize", {"width": "x"}]',
        '["resize", [1, 2]]', '["ping", {"t": 1}]', '["nothing-known", 1]', "[null]"]


async def test_malformed_socket_messages_are_ignored_and_the_session_goes_on(tmp_path):
    with serving(tmp_path, "--demo") as served:
        origin = served.url.rstrip("/")
        async with aiohttp.ClientSession() as session, session.ws_connect(
                served.url + "ws?width=80&height=24", origin=origin) as socket:
            await socket.send_bytes(b"\x00\xff binary is not a message")
            for text in JUNK:
                await socket.send_str(text)
            await socket.send_str(json.dumps(["ping", "still-here"]))
            painted = 0
            async with asyncio.timeout(120):
                async for message in socket:
                    if message.type == aiohttp.WSMsgType.BINARY:
                        painted += len(message.data)
                    elif message.type == aiohttp.WSMsgType.TEXT:
                        if json.loads(message.data) == ["pong", "still-here"]:
                            break
                    else:
                        raise AssertionError(f"the session ended: {message}")
            assert served.process.poll() is None
        printed = "\n".join(served.lines)
        assert "Traceback" not in printed and "Error" not in printed, printed
