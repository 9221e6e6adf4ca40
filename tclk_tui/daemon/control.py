"""`tclk-tui daemon status|stop`: asked over the socket, without opening the engine."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tclk_tui.daemon.client import DaemonLost, try_connect
from tclk_tui.store.profile_lock import is_locked, owner_pid

STOP_WAIT_S = 30.0


def daemon_status(profile_dir: Path) -> tuple[bool, dict[str, Any]]:
    """(running, facts): the daemon's own status, or what the profile directory says."""
    client = try_connect(profile_dir, timeout_s=10.0)
    if client is None:
        facts: dict[str, Any] = {"running": False, "profile": profile_dir.name}
        if is_locked(profile_dir):
            facts["owner_pid"] = owner_pid(profile_dir)
        return False, facts
    with client:
        return True, {"running": True, **client.call("daemon.status")}


def daemon_stop(profile_dir: Path) -> dict[str, Any] | None:
    """Ask the daemon to stop and wait (bounded) until the profile is free; None if none ran."""
    client = try_connect(profile_dir, timeout_s=10.0)
    if client is None:
        return None
    with client:
        try:
            answer = client.call("daemon.stop")
        except DaemonLost:
            answer = {"stopping": True}
    deadline = time.monotonic() + STOP_WAIT_S
    while is_locked(profile_dir) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {**answer, "stopped": not is_locked(profile_dir)}
