"""Helpers for agent tests: manifests written as the operator would, desks on real wallets."""

from __future__ import annotations

from pathlib import Path

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
