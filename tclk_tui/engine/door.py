"""The one door a face goes through: the registry's commands, plus read-only views.

A face (the app, in-process or attached to the profile's owner) performs every action as a
registry command (`run`), asks a gated command's request as the registry states it (`state`,
the dry run its confirm dialog repeats while open), and otherwise only reads: the board, a
deal's view, the vault's status, the alerts. Nothing here decides anything; the commands and
the engine behind them do. `LocalDoor` is the door over a wallet in this process; the control
socket serves the same door to an attached face (`daemon.methods`, `daemon.remote`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from tclk_tui.engine import commands
from tclk_tui.engine.commands import REGISTRY, THEME_SETTING, Unconfirmed
from tclk_tui.engine.events import Alert, Event, VenueStatus
from tclk_tui.engine.gates import GateRefused, GateRequest
from tclk_tui.engine.views import (
    BoardQuery,
    DealView,
    FieldProblem,
    HeldSecret,
    OfferDraft,
    OfferRow,
    VaultStatus,
)

if TYPE_CHECKING:  # annotations only: the door itself stays light to import
    from tclk_tui.engine.sync.venue_budget import VenueBudgetView
    from tclk_tui.engine.wallet import Wallet


class EventsView(Protocol):
    def subscribe(self) -> asyncio.Queue[Event]: ...

    def unsubscribe(self, queue: asyncio.Queue[Event]) -> None: ...


class BoardView(Protocol):
    """The offers board, read only."""

    def query(self, q: BoardQuery) -> list[OfferRow]: ...

    def get(self, offer_id: str) -> OfferRow | None: ...

    def rejected(self) -> dict[str, int]: ...

    def __len__(self) -> int: ...


class Door(Protocol):
    """What a face may do: run a command, state a gated one, and read views."""

    async def run(self, name: str, params: Mapping[str, Any] | None = None) -> Any: ...

    def state(self, name: str, params: Mapping[str, Any] | None = None) -> GateRequest: ...

    @property
    def profile(self) -> str: ...

    @property
    def did(self) -> str: ...

    @property
    def venue_url(self) -> str: ...

    @property
    def venue_status(self) -> VenueStatus: ...

    @property
    def events(self) -> EventsView: ...

    @property
    def board(self) -> BoardView: ...

    @property
    def serves_referee(self) -> bool: ...

    def now_ms(self) -> int: ...

    def venue_budget(self) -> VenueBudgetView | None: ...

    def take_alerts(self) -> list[Alert]: ...

    def validate_offer_draft(self, draft: OfferDraft) -> list[FieldProblem]: ...

    def accept_refusal(self, offer_id: str) -> str | None: ...

    def deals(self) -> list[DealView]: ...

    def deal_view(self, deal_id: str) -> DealView: ...

    def vault_status(self) -> VaultStatus: ...

    def held_secrets(self) -> list[HeldSecret]: ...

    def cases(self) -> list[Any]: ...

    def round_view(self, offer_id: str) -> Any: ...

    def committee_overview(self) -> list[dict[str, Any]]: ...

    def theme(self) -> str | None: ...


VIEWS: tuple[str, ...] = (
    "venue_budget", "take_alerts", "validate_offer_draft", "accept_refusal", "deals",
    "deal_view", "vault_status", "held_secrets", "cases", "round_view", "committee_overview",
    "theme")
"""The door's read-only views by name (its methods beside `run` and `state`): the one list
the control socket serves an attached door from (`daemon.methods`)."""


def offer_params(draft: OfferDraft) -> dict[str, Any]:
    """The `offer` command's params for what the offer form holds. A duration that is not a
    whole number stays as typed, so the command refuses it by name."""

    def seconds(value: str) -> int | str:
        value = value.strip()
        return int(value) if value.isascii() and value.isdigit() else value

    return {"role": draft.role, "amount": draft.amount, "asset": draft.asset,
            "lock": draft.lock, "rails": draft.rails, "claim_in": seconds(draft.claim_in_s),
            "refund_gap": seconds(draft.refund_gap_s),
            "expires_in": seconds(draft.expires_in_s),
            "job": draft.job or None, "panel": draft.panel or None}


def confirmed(name: str, params: Mapping[str, Any], typed_code: str | None,
              acknowledge_late: bool = False) -> dict[str, Any]:
    """`params` with what the operator gave the confirm dialog, in the command's own confirm
    param (the code typed, or yes), and its `late` acknowledgement if it takes one."""
    command = REGISTRY[name]
    assert command.confirm is not None, f"{name} is not gated"
    confirm = command.param(command.confirm)
    out = {**params, confirm.name: True if confirm.base is bool else (typed_code or "")}
    if acknowledge_late and "late" in command.param_names:
        out["late"] = True
    return out


async def perform(door: Door, name: str, params: Mapping[str, Any], typed_code: str | None,
                  acknowledge_late: bool = False) -> Any:
    """Run a gated command with the operator's confirmation: its performed answer. An answer
    that is still a request (the engine's facts moved to need a code) performed nothing."""
    answer = await door.run(name, confirmed(name, params, typed_code, acknowledge_late))
    if isinstance(answer, Unconfirmed):
        raise GateRefused("the engine's facts changed and need confirming again")
    return answer


class LocalDoor:
    """The door over a wallet in this process: commands through the registry, reads from the
    wallet's own views."""

    def __init__(self, wallet: Wallet) -> None:
        self._wallet = wallet

    def __repr__(self) -> str:
        return f"LocalDoor(profile={self._wallet.profile!r})"

    async def run(self, name: str, params: Mapping[str, Any] | None = None) -> Any:
        return await commands.run(self._wallet, name, params)

    def state(self, name: str, params: Mapping[str, Any] | None = None) -> GateRequest:
        return commands.state(self._wallet, name, params)

    # -- views ------------------------------------------------------------------------------

    @property
    def profile(self) -> str:
        return self._wallet.profile

    @property
    def did(self) -> str:
        return self._wallet.did

    @property
    def venue_url(self) -> str:
        return self._wallet.venue_url

    @property
    def venue_status(self) -> VenueStatus:
        return self._wallet.venue_status

    @property
    def events(self) -> EventsView:
        return self._wallet.events

    @property
    def board(self) -> BoardView:
        return self._wallet.board

    @property
    def serves_referee(self) -> bool:
        return getattr(self._wallet, "referee", None) is not None

    def now_ms(self) -> int:
        return self._wallet.now_ms()

    def venue_budget(self) -> VenueBudgetView | None:
        return self._wallet.venue_budget()

    def take_alerts(self) -> list[Alert]:
        return self._wallet.take_alerts()

    def validate_offer_draft(self, draft: OfferDraft) -> list[FieldProblem]:
        return self._wallet.validate_offer_draft(draft)

    def accept_refusal(self, offer_id: str) -> str | None:
        return self._wallet.accept_refusal(offer_id)

    def deals(self) -> list[DealView]:
        return self._wallet.deals()

    def deal_view(self, deal_id: str) -> DealView:
        return self._wallet.deal(deal_id).view()

    def vault_status(self) -> VaultStatus:
        return self._wallet.vault_status()

    def held_secrets(self) -> list[HeldSecret]:
        return self._wallet.held_secrets()

    def cases(self) -> list[Any]:
        return list(self._wallet.referee.cases())

    def round_view(self, offer_id: str) -> Any:
        return self._wallet.referee.round_view(offer_id)

    def committee_overview(self) -> list[dict[str, Any]]:
        return self._wallet.committee_overview()

    def theme(self) -> str | None:
        return self._wallet.journal.settings.get(THEME_SETTING)


if TYPE_CHECKING:  # mypy proves the local door is a Door; nothing runs here
    def _local(door: LocalDoor) -> Door:
        return door


__all__ = ["THEME_SETTING", "VIEWS", "BoardView", "Door", "EventsView", "LocalDoor",
           "confirmed", "offer_params", "perform"]
