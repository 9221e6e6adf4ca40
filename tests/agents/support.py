"""Helpers for agent tests: manifests written as the operator would, desks on real wallets."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from tclk_tui.agents.backend import WalletBackend
from tclk_tui.agents.desk import AgentDesk
from tclk_tui.engine.wallet import Wallet
from tests.engine.helpers import Pair

ALL_TOOLS = ("board", "offer", "accept", "status", "deals", "lock", "reveal", "refund",
             "cancel", "heartbeat", "receipt", "audit", "rails", "approval")


def manifest_text(*, tools: tuple[str, ...] = ALL_TOOLS, extra: str = "",
                  approval: str = 'lock = "auto"\nreveal = "auto"\nrefund = "auto"\n'
                                  'cancel = "auto"\n') -> str:
    listed = ", ".join(f'"{t}"' for t in tools)
    return f"tools = [{listed}]\n{extra}\n[approval]\n{approval}"


def write_manifest(wallet: Wallet, data_dir: Path, name: str, text: str) -> Path:
    folder = data_dir / wallet.profile / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def desk_for(wallet: Wallet, data_dir: Path, clock) -> AgentDesk:
    return AgentDesk(WalletBackend(wallet), wallet.journal.agents, data_dir / wallet.profile,
                     clock_ms=clock)


class Desks:
    """Alice's and Bob's desks on one venue; `reopen` restarts a wallet and its desk."""

    def __init__(self, pair: Pair) -> None:
        self.pair = pair
        self.alice = desk_for(pair.alice, pair.data_dir, pair.clock)
        self.bob = desk_for(pair.bob, pair.data_dir, pair.clock)

    def manifest(self, who: str, name: str, text: str) -> Path:
        return write_manifest(getattr(self.pair, who), self.pair.data_dir, name, text)

    async def reopen(self, who: str) -> AgentDesk:
        wallet = await self.pair.reopen(who)
        desk = desk_for(wallet, self.pair.data_dir, self.pair.clock)
        setattr(self, who, desk)
        return desk

    async def sync(self) -> None:
        await self.pair.sync()


@contextlib.asynccontextmanager
async def over_socket(pair: Pair, who: str) -> AsyncIterator[Callable[..., Awaitable[Any]]]:
    """The wallet's owner serving its agents on the control socket, as `tclk-tui daemon` does;
    yields `call(agent, tool, params)` made as the MCP server makes it (`attach`), in a thread
    over the real socket, raising the desk's own ToolError."""
    from tclk_tui.agents.attach import attach
    from tclk_tui.agents.service import agent_methods, serving_agents
    from tclk_tui.daemon.service import serve_wallet
    from tclk_tui.daemon.wire import RpcError

    wallet = getattr(pair, who)
    folder = pair.data_dir / wallet.profile
    async with serving_agents(wallet, room=False) as desk, \
            serve_wallet(wallet, folder, extra=agent_methods(desk, RpcError)):

        async def call(agent: str, tool: str, params: dict[str, Any]) -> Any:
            remote = await asyncio.to_thread(attach, agent, folder)
            assert not isinstance(remote, str), remote
            return await remote(tool, params)

        yield call
