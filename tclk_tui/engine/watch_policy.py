"""What the wallet does by itself while nobody watches, and how it calls for the operator.

The operator writes it in the profile, `<data dir>/<profile>/policy.toml`:

    [auto]
    refund = true                # refund what the rail holds once the refund window opens
    heartbeat_every_s = 600      # a heartbeat in each open deal's room this often; 0: never

    [alerts]
    command = ["notify-send", "tclk-tui"]     # run with the alert's text as last argument
    webhook = "http://127.0.0.1:9876/alerts"  # the alert POSTed as JSON

Only safe, secret-free actions are automatic: a refund (the rail pays the payer back, and only
once its window is open) and a heartbeat. Nothing that reveals a secret, locks money or
answers for the operator is ever done by itself; those raise an alert instead. A file that
cannot be used is named with the reason, and the defaults hold (refunds and heartbeats on, no
command, no webhook).
"""

from __future__ import annotations

import ipaddress
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

POLICY_FILE = "policy.toml"
DEFAULT_HEARTBEAT_S = 600
MAX_COMMAND_ARGS = 32


@dataclass(frozen=True, slots=True)
class WatchPolicy:
    auto_refund: bool = True
    heartbeat_every_s: int = DEFAULT_HEARTBEAT_S
    alert_command: tuple[str, ...] = ()
    alert_webhook: str | None = None
    problem: str | None = None  # why the file was refused (the defaults hold then)


class _Refused(ValueError):
    pass


def _bool(table: dict[str, Any], key: str, default: bool) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        raise _Refused(f"{key} is true or false")
    return value


def _command(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or len(value) > MAX_COMMAND_ARGS or not all(
            isinstance(a, str) and a and "\x00" not in a for a in value):
        raise _Refused("alerts.command is a list of words, the program first, e.g. "
                       '["notify-send", "tclk-tui"] (no shell runs it)')
    return tuple(value)


def _webhook(value: object) -> str:
    if not isinstance(value, str):
        raise _Refused("alerts.webhook is a URL")
    parts = urlsplit(value)
    host = parts.hostname or ""
    if parts.scheme == "https" and host:
        return value
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if parts.scheme == "http" and loopback:
        return value
    raise _Refused("alerts.webhook is an https:// URL, or http:// to this computer only "
                   "(127.0.0.1, ::1, localhost): an alert names your deals")


def parse_policy(data: dict[str, Any]) -> WatchPolicy:
    unknown = set(data) - {"auto", "alerts"}
    if unknown:
        raise _Refused(f"unknown table {sorted(unknown)[0]!r} (auto, alerts)")
    auto, alerts = data.get("auto", {}), data.get("alerts", {})
    if not isinstance(auto, dict) or not isinstance(alerts, dict):
        raise _Refused("auto and alerts are tables")
    for table, known in ((auto, {"refund", "heartbeat_every_s"}),
                         (alerts, {"command", "webhook"})):
        extra = set(table) - known
        if extra:
            raise _Refused(f"unknown key {sorted(extra)[0]!r}")
    every = auto.get("heartbeat_every_s", DEFAULT_HEARTBEAT_S)
    if isinstance(every, bool) or not isinstance(every, int) or not (
            every == 0 or 60 <= every <= 86400):
        raise _Refused("auto.heartbeat_every_s is 0 (never) or 60..86400 seconds")
    return WatchPolicy(
        auto_refund=_bool(auto, "refund", True), heartbeat_every_s=every,
        alert_command=_command(alerts["command"]) if "command" in alerts else (),
        alert_webhook=_webhook(alerts["webhook"]) if "webhook" in alerts else None)


def load_policy(profile_dir: Path) -> WatchPolicy:
    """The profile's policy, or the defaults with the reason the file was refused."""
    path = Path(profile_dir) / POLICY_FILE
    if not path.exists():
        return WatchPolicy()
    try:
        return parse_policy(tomllib.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, _Refused) as exc:
        return WatchPolicy(problem=f"{path}: {exc}; the defaults hold (refunds and "
                           "heartbeats by themselves, no alert command or webhook)")


__all__ = ["POLICY_FILE", "WatchPolicy", "load_policy", "parse_policy"]
