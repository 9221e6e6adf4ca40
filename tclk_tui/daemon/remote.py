"""The app's ports over the control socket, client side: the same screens, attached.

`RemoteWallet` answers what `tclk_tui.tui.ports.WalletPort` asks by calling the owner's
`port.call`. Reads the app makes while drawing are short blocking calls on one connection (the
owner answers them from memory, without waiting for any engine action); an action that awaits
the engine (post, accept, confirm) runs on a connection of its own in a worker thread, so the
screen keeps drawing meanwhile. Engine events arrive as notifications and are republished on a
local bus, the owner's recent events first: a face that re-attaches sees the warnings raised
while it was away.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

from tclk_tui.daemon import wire
from tclk_tui.daemon.client import DaemonClient
from tclk_tui.daemon.codec import Decoder, to_wire
from tclk_tui.daemon.wire import RpcError
from tclk_tui.engine.arbitration import ArbitrationError, CombineResult, Tally, VoteCommit
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
from tclk_tui.engine.gates import GateFact, GateRefused, GateRequest
from tclk_tui.engine.venue_budget import VenueBudgetView
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
from tclk_tui.protocol.errors import TclkError
from tclk_tui.technocore.budget import BudgetView
from tclk_tui.technocore.errors import VenueError
from tclk_tui.vault.errors import VaultError

VALUES = Decoder(OfferRow, DealView, Deadlines, RecordView, TimelineEntry, FieldProblem,
                 HeldSecret, VaultStatus, GateRequest, GateFact, CombineResult, VoteCommit,
                 Tally, BoardChanged, DealAdvanced, DeadlineWarning, VenueStatus, Notice,
                 VenueBudgetView, BudgetView, Alert)
_RAISED: dict[str, type[Exception]] = {
    "GateRefused": GateRefused, "ArbitrationError": ArbitrationError, "VaultError": VaultError,
    "VenueError": VenueError, "TclkError": TclkError, "EngineError": EngineError}


ROWS_PER_CALL = 5000  # board rows fetched in one reply (some 4 MiB of JSON)


class OwnerLost(EngineError):
    """The profile's owner went away while attached; the message says what to do."""


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and "type" in value:
        return VALUES.decode(value)
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _raise_as_engine(exc: RpcError) -> Exception:
    data = exc.data if isinstance(exc.data, dict) else {}
    cls = _RAISED.get(str(data.get("exception", "")), EngineError)
    if cls is GateRefused:
        return GateRefused(exc.message)
    try:
        return cls(exc.message)
    except TypeError:  # an error type with a richer constructor: keep the sentence
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


class _Port:
    """Calls on one target (`wallet`, `board`, a deal, ...) of the owner's `port.call`."""

    def __init__(self, remote: RemoteWallet, target: str, **extra: Any) -> None:
        self._remote = remote
        self._target = target
        self._extra = extra

    def _params(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                ) -> dict[str, Any]:
        return {"target": self._target, "name": name, "args": [to_wire(a) for a in args],
                "kwargs": {k: to_wire(v) for k, v in kwargs.items()}, **self._extra}

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self._remote.read("port.call", self._params(name, args, kwargs))

    async def act(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return await self._remote.act("port.call", self._params(name, args, kwargs))


class RemoteBoard(_Port):
    """The owner's board. A query asks for the matching offers' ids and versions only, and
    fetches the rows this face does not hold yet (or holds in an older version): a board of
    20,000 offers crosses the socket once, not at every requery."""

    def __init__(self, remote: RemoteWallet, target: str) -> None:
        super().__init__(remote, target)
        self._held: dict[str, tuple[int, OfferRow]] = {}

    def query(self, q: Any) -> list[OfferRow]:
        ids, versions = self.call("listing", q)
        listed = list(zip((ids[at:at + OFFER_ID_CHARS]
                           for at in range(0, len(ids), OFFER_ID_CHARS)), versions, strict=True))
        held = self._held
        stale = [oid for oid, version in listed
                 if (known := held.get(oid)) is None or known[0] != version]
        for start in range(0, len(stale), ROWS_PER_CALL):
            for version, row in self.call("rows", stale[start:start + ROWS_PER_CALL]):
                held[row.offer_id] = (int(version), row)
        # An offer whose row the owner no longer had is left out, as the owner's query would.
        return [held[oid][1] for oid, _ in listed if oid in held]

    def get(self, offer_id: str) -> OfferRow | None:
        return self.call("get", offer_id)

    def rejected(self) -> dict[str, int]:
        return self.call("rejected")

    def __len__(self) -> int:
        return int(self.call("__len__"))


class RemoteDeal(_Port):
    def __init__(self, remote: RemoteWallet, deal_id: str) -> None:
        super().__init__(remote, "deal", deal=deal_id)
        self.deal_id = deal_id

    def view(self) -> DealView:
        return self.call("view")

    def request_lock(self, rail: str | None = None) -> GateRequest:
        return self.call("request_lock", rail)

    def request_reveal(self) -> GateRequest:
        return self.call("request_reveal")

    def request_cancel(self) -> GateRequest:
        return self.call("request_cancel")

    def request_refund(self) -> GateRequest:
        return self.call("request_refund")

    async def confirm(self, request: GateRequest, *, typed_code: str | None = None,
                      acknowledge_late: bool = False) -> DealView:
        return await self.act("confirm", request, typed_code=typed_code,
                              acknowledge_late=acknowledge_late)

    async def heartbeat(self, note: str | None = None) -> DealView:
        return await self.act("heartbeat", note)

    async def receipt(self) -> DealView:
        return await self.act("receipt")


class RemoteArbitration(_Port):
    def split(self, kind: str, secret: str, parts: int) -> list[str]:
        return self.call("split", kind, secret, parts)

    def combine(self, kind: str, shares: list[str], statement: str | None = None) -> Any:
        return self.call("combine", kind, shares, statement)

    def commit_vote(self, contract: str, verdict: str) -> Any:
        return self.call("commit_vote", contract, verdict)

    def verify_vote(self, commitment: str, contract: str, verdict: str, salt: str) -> bool:
        return bool(self.call("verify_vote", commitment, contract, verdict, salt))

    async def tally(self, contract: str, jurors: list[str] | None = None) -> Any:
        return await self.act("tally", contract, jurors)


class RemoteSettings(_Port):
    """The owner's journal settings the app may read and write (its theme)."""

    def get_setting(self, key: str) -> str | None:
        return self.call("get_setting", key)

    def set_setting(self, key: str, value: str) -> None:
        self.call("set_setting", key, value)


class RemoteWallet:
    """A WalletPort whose engine runs in the profile's owner (daemon or app)."""

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
        self.board = RemoteBoard(self, "board")
        self.arbitration = RemoteArbitration(self, "arbitration")
        self.journal = RemoteSettings(self, "settings")
        self._wallet = _Port(self, "wallet")
        self._follower: asyncio.Task[None] | None = None
        self.replayed = 0
        self.lost: str | None = None

    @classmethod
    def attach(cls, profile_dir: Path) -> RemoteWallet | None:
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
        return f"RemoteWallet(profile={self._profile!r}, owner_pid={self.owner_pid})"

    # -- plumbing ---------------------------------------------------------------------------

    def read(self, method: str, params: dict[str, Any]) -> Any:
        if self._client is None:
            self._client = DaemonClient(self.socket, timeout_s=30.0)
        try:
            return _decode(self._client.call(method, params))
        except RpcError as exc:
            raise _raise_as_engine(exc) from None
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
            raise _raise_as_engine(exc) from None
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

    # -- WalletPort ----------------------------------------------------------------------------

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

    def venue_budget(self) -> VenueBudgetView | None:
        return self._wallet.call("venue_budget")

    def take_alerts(self) -> list[Alert]:
        return self._wallet.call("take_alerts")

    def now_ms(self) -> int:
        return int(time.time() * 1000)

    def validate_offer_draft(self, draft: Any) -> list[FieldProblem]:
        return self._wallet.call("validate_offer_draft", draft)

    async def post_offer(self, draft: Any) -> DealView:
        return await self._wallet.act("post_offer", draft)

    async def accept_offer(self, offer_id: str, *, rail: str | None = None) -> DealView:
        return await self._wallet.act("accept_offer", offer_id, rail=rail)

    def deals(self) -> list[DealView]:
        return self._wallet.call("deals")

    def deal(self, deal_id: str) -> RemoteDeal:
        view = RemoteDeal(self, deal_id).view()  # refuses an unknown deal now, as in-process
        return RemoteDeal(self, view.deal_id)

    def vault_status(self) -> VaultStatus:
        return self._wallet.call("vault_status")

    def held_secrets(self) -> list[HeldSecret]:
        return self._wallet.call("held_secrets")

    def request_seed_backup(self) -> GateRequest:
        return self._wallet.call("request_seed_backup")

    def confirm_seed_backup(self, request: GateRequest, typed_code: str = "") -> str:
        return self._wallet.call("confirm_seed_backup", request, typed_code)

    def request_seed_restore(self, text: str) -> GateRequest:
        return self._wallet.call("request_seed_restore", text)

    def confirm_seed_restore(self, request: GateRequest, typed_code: str = "") -> str:
        return self._wallet.call("confirm_seed_restore", request, typed_code)

    def request_secret_reveal(self, deal_id: str) -> GateRequest:
        return self._wallet.call("request_secret_reveal", deal_id)

    def confirm_secret_reveal(self, request: GateRequest, typed_code: str) -> str:
        return self._wallet.call("confirm_secret_reveal", request, typed_code)
