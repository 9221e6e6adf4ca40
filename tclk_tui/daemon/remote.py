"""The door over the control socket, client side: the same screens, attached.

`RemoteDoor` is the door (`engine.door.Door`) of the engine the profile's owner runs: a command
is the owner's `door.run`, a gated command's request its `door.state`, and everything else the
app reads is a `door.view` (`daemon.methods`). Reads the app makes while drawing are short
blocking calls on one connection (the owner answers them from memory, without waiting for any
engine action); a command runs on a connection of its own in a worker thread, so the screen
keeps drawing meanwhile. A refusal comes back as the command's error (`CommandError`), as
in-process. Engine events arrive as notifications and are republished on a local bus, the
owner's recent events first: a face that re-attaches sees the warnings raised while it was
away.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tclk_tui.daemon import wire
from tclk_tui.daemon.client import DaemonClient
from tclk_tui.daemon.codec import Decoder, to_wire
from tclk_tui.daemon.wire import RpcError
from tclk_tui.engine.arbitration.desk import CombineResult, Tally, VoteCommit
from tclk_tui.engine.arbitration.referee import CaseView
from tclk_tui.engine.arbitration.vote_round import JurorVote, RoundView
from tclk_tui.engine.audit import AuditReport, ContractAudit
from tclk_tui.engine.commands import CommandError, Unconfirmed
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.events import (
    Alert,
    BoardChanged,
    DeadlineWarning,
    DealAdvanced,
    Event,
    EventBus,
    Notice,
    VenueStatus,
)
from tclk_tui.engine.gates import GateFact, GateRequest
from tclk_tui.engine.sync.venue_budget import VenueBudgetView
from tclk_tui.engine.views import (
    OFFER_ID_CHARS,
    Deadlines,
    DealView,
    FieldProblem,
    HeldSecret,
    OfferRow,
    RecordView,
    TimelineEntry,
    VaultStatus,
)
from tclk_tui.technocore.budget import BudgetView

VALUES = Decoder(OfferRow, DealView, Deadlines, RecordView, TimelineEntry, FieldProblem,
                 HeldSecret, VaultStatus, GateRequest, GateFact, CombineResult, VoteCommit,
                 Tally, BoardChanged, DealAdvanced, DeadlineWarning, VenueStatus, Notice,
                 VenueBudgetView, BudgetView, Alert, Unconfirmed, CaseView, RoundView,
                 JurorVote, AuditReport, ContractAudit)


ROWS_PER_CALL = 5000  # board rows fetched in one reply (some 4 MiB of JSON)


class OwnerLost(EngineError):
    """The profile's owner went away while attached; the message says what to do."""


def _decode(value: Any) -> Any:
    """A command's or a view's answer rebuilt: the engine's values by their wire type; any
    other object (a frame's fields, a summary) stays the plain JSON it is."""
    if VALUES.knows(value):
        return VALUES.decode(value)
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        return {k: _decode(v) for k, v in value.items()}
    return value


def _refusal(exc: RpcError) -> Exception:
    """The owner's refusal as the command's error, as an in-process face meets it."""
    data = exc.data if isinstance(exc.data, dict) else {}
    if "kind" in data:
        return CommandError.from_dict(data)
    return EngineError(exc.message)


class _HeldBus(EventBus):
    """An event bus that holds what arrives before its first subscriber (the replay comes in
    while the app is still being built) and hands it to that subscriber."""

    def __init__(self) -> None:
        super().__init__()
        self._held: list[Event] | None = []

    def publish(self, event: Event) -> None:
        if self._held is not None:
            self._held.append(event)
        super().publish(event)

    def subscribe(self) -> asyncio.Queue[Event]:
        queue = super().subscribe()
        held, self._held = self._held, None
        for event in held or ():
            queue.put_nowait(event)
        return queue


class RemoteBoard:
    """The owner's board, read through `door.view`. A query asks for the matching offers' ids
    and versions only, and fetches the rows this face does not hold yet (or holds in an older
    version): a board of 20,000 offers crosses the socket once, not at every requery."""

    def __init__(self, door: RemoteDoor) -> None:
        self._door = door
        self._held: dict[str, tuple[int, OfferRow]] = {}

    def query(self, q: Any) -> list[OfferRow]:
        ids, versions = self._door.view("board.listing", q)
        listed = list(zip((ids[at:at + OFFER_ID_CHARS]
                           for at in range(0, len(ids), OFFER_ID_CHARS)), versions, strict=True))
        held = self._held
        stale = [oid for oid, version in listed
                 if (known := held.get(oid)) is None or known[0] != version]
        for start in range(0, len(stale), ROWS_PER_CALL):
            for version, row in self._door.view("board.rows", stale[start:start + ROWS_PER_CALL]):
                held[row.offer_id] = (int(version), row)
        # An offer whose row the owner no longer had is left out, as the owner's query would.
        return [held[oid][1] for oid, _ in listed if oid in held]

    def get(self, offer_id: str) -> OfferRow | None:
        return self._door.view("board.get", offer_id)  # type: ignore[no-any-return]

    def rejected(self) -> dict[str, int]:
        return self._door.view("board.rejected")  # type: ignore[no-any-return]

    def __len__(self) -> int:
        return int(self._door.view("board.size"))


class RemoteDoor:
    """The door (`engine.door.Door`) of the engine the profile's owner (daemon or app) runs."""

    def __init__(self, profile_dir: Path, status: dict[str, Any]) -> None:
        self.profile_dir = profile_dir
        self.socket = DaemonClient.for_profile(profile_dir).path
        self._client: DaemonClient | None = None
        self.owner_pid = int(status["pid"])
        self._profile = str(status["profile"])
        self._did = str(status["did"])
        self._venue_url = str(status["venue"])
        self._venue_status = VenueStatus(status.get("venue_status", "connecting"),
                                         status.get("venue_detail", ""))
        self.events: EventBus = _HeldBus()
        self.board = RemoteBoard(self)
        self._serves_referee: bool | None = None
        self._follower: asyncio.Task[None] | None = None
        self.replayed = 0
        self.lost: str | None = None

    @classmethod
    def attach(cls, profile_dir: Path) -> RemoteDoor | None:
        """Attach to the profile's owner if one answers, else None."""
        from tclk_tui.daemon.client import try_connect

        client = try_connect(profile_dir, timeout_s=30.0)
        if client is None:
            return None
        try:
            status = client.call("daemon.status")
        except (OSError, RpcError):
            client.close()
            return None
        remote = cls(profile_dir, status)
        remote._client = client
        return remote

    def __repr__(self) -> str:
        return f"RemoteDoor(profile={self._profile!r}, owner_pid={self.owner_pid})"

    # -- plumbing ---------------------------------------------------------------------------

    def read(self, method: str, params: dict[str, Any]) -> Any:
        if self._client is None:
            self._client = DaemonClient(self.socket, timeout_s=30.0)
        try:
            return _decode(self._client.call(method, params))
        except RpcError as exc:
            raise _refusal(exc) from None
        except OSError as exc:
            self._client.close()
            self._client = None
            raise OwnerLost(f"the profile's owner (pid {self.owner_pid}) is gone: {exc}; "
                            "start `tclk-tui daemon` or the app again") from None

    async def act(self, method: str, params: dict[str, Any]) -> Any:
        def blocking() -> Any:
            with DaemonClient(self.socket, timeout_s=None) as client:
                return client.call(method, params)

        try:
            return _decode(await asyncio.to_thread(blocking))
        except RpcError as exc:
            raise _refusal(exc) from None
        except OSError as exc:
            raise OwnerLost(f"the profile's owner (pid {self.owner_pid}) is gone: {exc}") \
                from None

    def start(self) -> None:
        """Follow the owner's events (recent ones first) onto the local bus."""
        if self._follower is None:
            self._follower = asyncio.get_running_loop().create_task(self._follow())

    async def _follow(self) -> None:
        try:
            reader, writer = await asyncio.open_unix_connection(
                str(self.socket), limit=wire.MAX_REPLY_BUFFER)
        except OSError as exc:
            self._lose(f"cannot follow the owner's events: {exc}")
            return
        try:
            writer.write(wire.request(1, "events.subscribe", {"replay": True}))
            await writer.drain()
            while True:
                line = await reader.readline()
                if not line:
                    self._lose("the profile's owner closed the connection")
                    return
                message = json.loads(line)
                if message.get("id") == 1:
                    self.replayed = int((message.get("result") or {}).get("replayed", 0))
                    continue
                if message.get("method") != "event":
                    continue
                with contextlib.suppress(ValueError, TypeError):
                    event = VALUES.decode(message["params"]["event"])
                    if isinstance(event, VenueStatus):
                        self._venue_status = event
                    self.events.publish(event)
        finally:
            writer.close()

    def _lose(self, why: str) -> None:
        self.lost = why
        self._venue_status = VenueStatus("offline", why)
        self.events.publish(self._venue_status)
        self.events.publish(Notice("error", f"{why}: this screen no longer follows the "
                                   "wallet; start `tclk-tui daemon` or the app again"))

    async def close(self) -> None:
        if self._follower is not None:
            self._follower.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._follower
        if self._client is not None:
            self._client.close()
            self._client = None

    # -- the door ----------------------------------------------------------------------------

    async def run(self, name: str, params: Mapping[str, Any] | None = None) -> Any:
        return await self.act("door.run", {"name": name, "params": dict(params or {})})

    def state(self, name: str, params: Mapping[str, Any] | None = None) -> GateRequest:
        return self.read("door.state", {"name": name,  # type: ignore[no-any-return]
                                        "params": dict(params or {})})

    def view(self, name: str, *args: Any) -> Any:
        return self.read("door.view", {"name": name, "args": [to_wire(a) for a in args]})

    @property
    def profile(self) -> str:
        return self._profile

    @property
    def did(self) -> str:
        return self._did

    @property
    def venue_url(self) -> str:
        return self._venue_url

    @property
    def venue_status(self) -> VenueStatus:
        return self._venue_status

    @property
    def serves_referee(self) -> bool:
        if self._serves_referee is None:  # the owner's wallet does not change while attached
            self._serves_referee = bool(self.view("serves_referee"))
        return self._serves_referee

    def now_ms(self) -> int:
        return int(time.time() * 1000)

    def venue_budget(self) -> VenueBudgetView | None:
        return self.view("venue_budget")  # type: ignore[no-any-return]

    def take_alerts(self) -> list[Alert]:
        return self.view("take_alerts")  # type: ignore[no-any-return]

    def validate_offer_draft(self, draft: Any) -> list[FieldProblem]:
        return self.view("validate_offer_draft", draft)  # type: ignore[no-any-return]

    def accept_refusal(self, offer_id: str) -> str | None:
        return self.view("accept_refusal", offer_id)  # type: ignore[no-any-return]

    def deals(self) -> list[DealView]:
        return self.view("deals")  # type: ignore[no-any-return]

    def deal_view(self, deal_id: str) -> DealView:
        return self.view("deal_view", deal_id)  # type: ignore[no-any-return]

    def vault_status(self) -> VaultStatus:
        return self.view("vault_status")  # type: ignore[no-any-return]

    def held_secrets(self) -> list[HeldSecret]:
        return self.view("held_secrets")  # type: ignore[no-any-return]

    def cases(self) -> list[Any]:
        return self.view("cases")  # type: ignore[no-any-return]

    def round_view(self, offer_id: str) -> Any:
        return self.view("round_view", offer_id)

    def committee_overview(self) -> list[dict[str, Any]]:
        return self.view("committee_overview")  # type: ignore[no-any-return]

    def theme(self) -> str | None:
        return self.view("theme")  # type: ignore[no-any-return]


if TYPE_CHECKING:  # mypy proves the attached door is a Door; nothing runs here
    from tclk_tui.engine.door import Door

    def _remote(door: RemoteDoor) -> Door:
        return door
