"""Alerts: what needs the operator reaches them even when no screen is attached.

Each alert has a key naming the condition (a deal's deadline level, an approval, a rail
disagreement) and is journaled the first time it is raised, never again: a restart, a second
tick or a second face raises nothing new. It is published as an `Alert` event (an attached app
rings the terminal bell and shows it), handed to the operator's command or webhook from
`policy.toml` (`notify-send`, an HTTP POST to a local service) whether or not a screen is
attached, and kept unseen until a face takes it (`take_unseen`), so the app shows on attach
what was raised while it was away.

The command runs without a shell, its text as the last argument and in `TCLK_ALERT_*`
variables; it is given `COMMAND_TIMEOUT_S` and its failure is a notice, never a crash. Alert
texts name deals and deadlines, never a secret.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Callable, Coroutine
from dataclasses import asdict
from typing import Any

from tclk_tui.engine.events import Alert, EventBus, Notice
from tclk_tui.engine.watch_policy import WatchPolicy
from tclk_tui.store.journal import Journal

log = logging.getLogger(__name__)

SETTING = "alert:"
COMMAND_TIMEOUT_S = 10.0
WEBHOOK_TIMEOUT_S = 5.0
KEEP_MS = 7 * 86_400_000  # alerts older than a week are forgotten


class AlertDesk:
    def __init__(self, journal: Journal, events: EventBus, now_ms: Callable[[], int],
                 spawn: Callable[[Coroutine[Any, Any, None]], None],
                 policy: WatchPolicy | None = None) -> None:
        self._journal = journal
        self._events = events
        self._now_ms = now_ms
        self._spawn = spawn
        self.policy = policy or WatchPolicy()

    def raise_alert(self, key: str, kind: str, text: str,
                    deal_id: str | None = None) -> Alert | None:
        """Raise the alert unless it was raised before; returns it when new."""
        name = SETTING + key
        if self._journal.get_setting(name) is not None:
            return None
        alert = Alert(key=key, kind=kind, text=text, deal_id=deal_id, raised_ms=self._now_ms())
        self._journal.set_object_setting(name, {**asdict(alert), "seen": False})
        log.warning("alert (%s): %s", kind, text)
        self._events.publish(alert)
        self._spawn(self.deliver(alert))
        return alert

    def take_unseen(self) -> list[Alert]:
        """The alerts no face has shown yet, oldest first; they count as seen from now."""
        out = []
        now = self._now_ms()
        for name in [k for k in self._journal.settings() if k.startswith(SETTING)]:
            data = self._journal.object_setting(name)
            try:
                alert = Alert(key=str(data["key"]), kind=str(data["kind"]),
                              text=str(data["text"]), deal_id=data.get("deal_id"),
                              raised_ms=int(data["raised_ms"]))
            except (KeyError, TypeError, ValueError):
                continue
            if now - alert.raised_ms > KEEP_MS:
                self._journal.delete_setting(name)
                continue
            if not data.get("seen"):
                out.append(alert)
                self._journal.set_object_setting(name, {**data, "seen": True})
        return sorted(out, key=lambda a: a.raised_ms)

    async def deliver(self, alert: Alert) -> None:
        """Hand the alert to the operator's command and webhook (either, both, or none)."""
        if self.policy.alert_command:
            await self._run_command(alert)
        if self.policy.alert_webhook:
            await self._post(alert)

    async def _run_command(self, alert: Alert) -> None:
        argv = [*self.policy.alert_command, alert.text]
        env = dict(os.environ, TCLK_ALERT_KIND=alert.kind, TCLK_ALERT_TEXT=alert.text,
                   TCLK_ALERT_DEAL=alert.deal_id or "", TCLK_ALERT_KEY=alert.key)
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL, env=env)
        except OSError as exc:
            self._failed(f"the alert command {argv[0]!r} could not be started: {exc}")
            return
        try:
            async with asyncio.timeout(COMMAND_TIMEOUT_S):
                code = await proc.wait()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            self._failed(f"the alert command {argv[0]!r} did not finish within "
                         f"{COMMAND_TIMEOUT_S:g} s and was stopped")
            return
        if code != 0:
            self._failed(f"the alert command {argv[0]!r} exited with status {code}")

    async def _post(self, alert: Alert) -> None:
        import httpx  # only a profile with a webhook pays for it

        url = self.policy.alert_webhook or ""
        body = json.dumps({"kind": alert.kind, "text": alert.text, "deal": alert.deal_id,
                           "key": alert.key, "raised_ms": alert.raised_ms})
        try:
            async with httpx.AsyncClient(timeout=WEBHOOK_TIMEOUT_S,
                                         follow_redirects=False) as client:
                reply = await client.post(url, content=body,
                                          headers={"content-type": "application/json"})
        except httpx.HTTPError as exc:
            self._failed(f"the alert webhook could not be reached: {type(exc).__name__}")
            return
        if not 200 <= reply.status_code < 300:
            self._failed(f"the alert webhook answered {reply.status_code}")

    def _failed(self, text: str) -> None:
        log.warning("%s", text)
        self._events.publish(Notice("warning", text))


__all__ = ["AlertDesk"]
