"""The owner's agents' desk, seen from an app attached to it through the profile's socket.

The desk lives where the engine runs (a daemon, or the app that owns the profile); an attached
app shows the same Approvals pane and answers through the same confirm dialog, and the owner
re-checks and performs. `remote` is the attached wallet (`read` a blocking call, `act` an
awaited one), so this module needs nothing of the socket itself.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tclk_tui.agents.desk import ApprovalError


def _row(data: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(id=data["approval"], agent=data["agent"], tool=data["tool"],
                           deal_id=data.get("deal"), state=data["state"],
                           reason=data.get("reason", ""), params=data.get("params") or {},
                           facts=data.get("facts") or {}, created_ms=data.get("created_ms", 0),
                           result=data.get("result"))


class _Calls:
    def __init__(self, remote) -> None:
        self._remote = remote

    def calls(self, agent: str | None = None, *, deal_id: str | None = None,
              limit: int = 200) -> list[SimpleNamespace]:
        rows = self._remote.read("agents.calls", {"agent": agent, "deal": deal_id,
                                                  "limit": limit})
        return [SimpleNamespace(**r) for r in rows["calls"]]


class RemoteDesk:
    def __init__(self, remote) -> None:
        self.remote = remote
        self.ledger = _Calls(remote)

    def __repr__(self) -> str:
        return f"RemoteDesk({self.remote!r})"

    @classmethod
    def attach(cls, remote) -> RemoteDesk | None:
        """The owner's desk, if the owner serves one."""
        try:
            remote.read("agents.pending", {})
        except Exception:  # an owner without agents: the app runs without the pane
            return None
        return cls(remote)

    def subscribe(self, listener) -> None:
        """Nothing pushes approvals to an attached app; it redraws them every tick."""

    def pending(self) -> list[SimpleNamespace]:
        return [_row(d) for d in self.remote.read("agents.pending", {})["approvals"]]

    def approval(self, approval_id: str) -> SimpleNamespace | None:
        found = self.remote.read("agents.approval", {"approval": approval_id})
        return _row(found) if found else None

    async def refresh(self) -> list[str]:
        return []  # the owner lapses what changed each time it is asked for the pending

    async def approve(self, approval_id: str, typed_code: str | None = None, *,
                      acknowledge_late: bool = False) -> SimpleNamespace:
        try:
            decided = await self.remote.act("agents.approve", {
                "approval": approval_id, "code": typed_code, "late": acknowledge_late})
        except Exception as exc:  # the owner's refusal, as its sentence
            raise ApprovalError(str(exc)) from None
        return _row(decided)

    def deny(self, approval_id: str, reason: str) -> SimpleNamespace:
        return _row(self.remote.read("agents.deny", {"approval": approval_id,
                                                     "reason": reason}))


__all__ = ["RemoteDesk"]
