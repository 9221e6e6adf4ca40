"""The terminal socket takes what a page sends and nothing else: malformed messages are
ignored, never the end of the session."""

from __future__ import annotations

import asyncio
import json
import os
import signal

import aiohttp
import pytest

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


async def test_a_hangup_ends_every_served_app_and_its_demo_profile(tmp_path, demo_tmp):
    """A closed SSH session sends SIGHUP: the server lets each page's app quit (its demo
    profile deleted) and leaves no process behind."""
    with serving(tmp_path, "--demo", env={"TMPDIR": str(demo_tmp)}) as served:
        async with aiohttp.ClientSession() as session:
            sockets = [await session.ws_connect(served.url + "ws?width=80&height=24",
                                                origin=served.url.rstrip("/"))
                       for _ in range(2)]
            async with asyncio.timeout(120):
                while len(list(demo_tmp.glob("tclk-demo-*"))) < 2:
                    await asyncio.sleep(0.05)
            served.process.send_signal(signal.SIGHUP)
            async with asyncio.timeout(60):
                while served.process.poll() is None:
                    await asyncio.sleep(0.05)
            for socket in sockets:
                await socket.close()
        assert served.process.returncode == 0
        assert list(demo_tmp.iterdir()) == []
        with pytest.raises(ProcessLookupError):
            os.killpg(served.process.pid, 0)  # nothing is left in its process group
