"""The control socket: JSON-RPC that survives bad input, this user only, stale sockets replaced."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import signal
import socket
import stat
import subprocess
import sys

import pytest

from tclk_tui.daemon import wire
from tclk_tui.daemon.client import DaemonClient
from tclk_tui.daemon.paths import socket_path
from tclk_tui.daemon.peer import peer_refusal, peer_uid
from tclk_tui.daemon.server import ControlServer
from tclk_tui.daemon.wire import RpcError
from tclk_tui.engine.events import EventBus
from tests.daemon.conftest import DaemonProcess, run_cli


def _raw(daemon: DaemonProcess, *lines: bytes) -> list[dict]:
    """Send raw lines on one connection; read one answer per line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(str(daemon.socket))
        reader = sock.makefile("rb")
        answers = []
        for line in lines:
            sock.sendall(line)
            answers.append(json.loads(reader.readline()))
        return answers


def test_socket_is_0600_inside_a_0700_directory(daemon):
    info = daemon.socket.lstat()
    assert stat.S_ISSOCK(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
    assert stat.S_IMODE(daemon.socket.parent.lstat().st_mode) == 0o700
    assert daemon.socket.parent.lstat().st_uid == os.getuid()


def test_malformed_requests_get_json_rpc_errors_and_the_daemon_keeps_serving(daemon):
    answers = _raw(daemon,
                   b"this is not json\n",
                   b"[1, 2, 3]\n",
                   b'{"jsonrpc": "1.0", "id": 1, "method": "identity"}\n',
                   b'{"jsonrpc": "2.0", "id": 2}\n',
                   b'{"jsonrpc": "2.0", "id": 3, "method": "identity", "params": [1]}\n',
                   b'{"jsonrpc": "2.0", "id": {"x": 1}, "method": "identity"}\n',
                   b'{"jsonrpc": "2.0", "id": 4, "method": "no.such.method"}\n',
                   b'{"jsonrpc": "2.0", "id": 5, "method": "status", "params": {}}\n',
                   b'\xff\xfe\x00garbage\n',
                   b'{"jsonrpc": "2.0", "id": 6, "method": "identity"}\n')
    codes = [a.get("error", {}).get("code") for a in answers]
    assert codes == [wire.PARSE_ERROR, wire.INVALID_REQUEST, wire.INVALID_REQUEST,
                     wire.INVALID_REQUEST, wire.INVALID_PARAMS, wire.INVALID_REQUEST,
                     wire.METHOD_NOT_FOUND, wire.INVALID_PARAMS, wire.PARSE_ERROR, None]
    assert answers[-1]["id"] == 6 and answers[-1]["result"]["profile"] == "alice"
    assert all(a["jsonrpc"] == "2.0" for a in answers)


def test_an_overlong_line_is_refused_and_the_daemon_lives_on(daemon):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(str(daemon.socket))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(b"x" * (wire.MAX_LINE + 10) + b"\n")  # it may drop us mid-way
        reply = sock.makefile("rb").readline()
    if reply:
        assert json.loads(reply)["error"]["code"] == wire.INVALID_REQUEST
    with daemon.client() as client:
        assert client.call("identity")["profile"] == "alice"


def test_a_client_vanishing_mid_call_leaves_the_daemon_serving(daemon):
    for _ in range(5):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(daemon.socket))
            sock.sendall(wire.request(1, "deals"))
    with daemon.client() as client:
        assert client.call("daemon.status")["pid"] == daemon.proc.pid


def test_a_refusal_carries_the_cli_error_shape(daemon):
    with daemon.client() as client, pytest.raises(RpcError) as refused:
        client.call("status", {"deal": "0xnosuchdeal"})
    assert refused.value.code == wire.REFUSED
    assert refused.value.data["kind"] == "not-found"
    # Not hex, so no prefix of an id: the sentence says how a deal is named.
    assert refused.value.data["message"].startswith("no deal '0xnosuchdeal': name it by its id")


def test_the_peer_check_refuses_another_user():
    assert peer_refusal(os.getuid()) is None
    assert "serves user 1000 only (peer is user 1001)" in peer_refusal(1001, own_uid=1000)
    assert peer_refusal(None) is not None  # unknown peer: refused, never assumed
    left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with left, right:
        assert peer_uid(left) == os.getuid()


def _probe_as_nobody(path) -> dict:
    """Connect as user nobody (fork + setuid) and read the daemon's first answer."""
    nobody = pwd.getpwnam("nobody")
    # The 0700 directory keeps another user from even reaching the socket; open it for this
    # probe so the daemon's own peer check is what answers.
    os.chmod(path.parent, 0o711)
    os.chmod(path, 0o666)
    try:
        probe = subprocess.run(
            [sys.executable, "-c",
             "import os, socket, sys; os.setgid(int(sys.argv[2])); os.setuid(int(sys.argv[3]));"
             "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]);"
             "print(s.makefile('rb').readline().decode())",
             str(path), str(nobody.pw_gid), str(nobody.pw_uid)],
            capture_output=True, text=True, timeout=30, check=False)
    finally:
        os.chmod(path, 0o600)
        os.chmod(path.parent, 0o700)
    assert probe.returncode == 0, probe.stderr
    return json.loads(probe.stdout)


async def _probe_with_a_fake_peer_uid(tmp_path) -> dict:
    """The server's refusal path with the kernel's answer replaced by another user's uid."""
    path = socket_path(tmp_path / "fake")
    server = ControlServer(path, _no_commands, EventBus(), status=dict,
                           uid_of=lambda sock: os.getuid() + 1)
    await server.start()
    try:
        reader, writer = await asyncio.open_unix_connection(str(path))
        line = await reader.readline()
        writer.close()
    finally:
        await server.close()
    return json.loads(line)


async def _no_commands(method, params):
    raise AssertionError("a refused peer reached the engine")


async def test_a_client_of_another_user_is_refused(daemon, tmp_path):
    if os.getuid() == 0:
        answer = await asyncio.to_thread(_probe_as_nobody, daemon.socket)
        other = pwd.getpwnam("nobody").pw_uid
    else:
        answer = await _probe_with_a_fake_peer_uid(tmp_path)
        other = os.getuid() + 1
    assert answer["error"]["data"]["kind"] == "refused"
    assert f"peer is user {other}" in answer["error"]["message"]
    assert "result" not in answer
    with daemon.client() as client:
        assert client.call("identity")["profile"] == "alice"


async def test_the_server_refuses_a_foreign_uid_before_reading_a_request(tmp_path):
    answer = await _probe_with_a_fake_peer_uid(tmp_path)
    assert answer["error"]["code"] == wire.REFUSED and "result" not in answer


async def test_a_stale_socket_of_a_killed_daemon_is_replaced(daemon):
    first_pid = daemon.proc.pid
    assert await daemon.stop(signal.SIGKILL) == -signal.SIGKILL
    assert daemon.socket.exists()  # SIGKILL left the file behind
    code, out, _err = await run_cli(daemon.venue_url, daemon.home, "alice", "daemon", "status")
    assert code == 1 and "no daemon runs" in out
    await daemon.start()
    assert daemon.proc.pid != first_pid
    with DaemonClient(daemon.socket) as client:
        assert client.call("daemon.status")["pid"] == daemon.proc.pid


async def test_status_and_stop_from_the_command_line(daemon):
    code, out, err = await run_cli(daemon.venue_url, daemon.home, "alice", "--json",
                                   "daemon", "status")
    assert code == 0, err
    facts = json.loads(out)
    assert facts["running"] and facts["pid"] == daemon.proc.pid and facts["profile"] == "alice"
    code, out, err = await run_cli(daemon.venue_url, daemon.home, "alice", "--json",
                                   "daemon", "stop")
    assert code == 0, err
    assert json.loads(out)["stopped"] is True
    assert await daemon.proc.wait() == 0
    assert not daemon.socket.exists()
    code, out, err = await run_cli(daemon.venue_url, daemon.home, "alice", "daemon", "stop")
    assert code == 1 and "no daemon runs" in err


async def _identity_only(method, params):
    return {"method": method}


async def test_deep_json_gets_a_json_rpc_error_and_the_connection_stays(tmp_path):
    path = socket_path(tmp_path / "deep")
    server = ControlServer(path, _identity_only, EventBus(), status=dict)
    await server.start()
    deep = b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": {"a": ' + b"[" * 100_000 \
        + b"]" * 100_000 + b"}}\n"
    try:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=wire.MAX_LINE)
        writer.write(deep + b'{"jsonrpc": "2.0", "id": 2, "method": "identity"}\n')
        await writer.drain()
        async with asyncio.timeout(30):
            first, second = json.loads(await reader.readline()), json.loads(
                await reader.readline())
        writer.close()
    finally:
        await server.close()
    assert first["error"]["code"] == wire.PARSE_ERROR and "deep" in first["error"]["message"]
    assert second == {"jsonrpc": "2.0", "id": 2, "result": {"method": "identity"}}
