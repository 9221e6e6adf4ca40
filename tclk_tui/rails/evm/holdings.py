"""This wallet's account as last read: its ether and token balances, and the network's fee.

Its own object because the faces ask for these figures without I/O (`account_text`,
`fee_note`), so someone has to remember the last read; the reads and sends of locks never
need that memory, only the lock quote refreshes it.
"""

from __future__ import annotations

from tclk_tui.rails.base import SettlementError

from .expect import format_units
from .reads import ChainReads
from .token import ETHER, read_token
from .tx import FeeRead, Sender

__all__ = ["AccountView"]


class AccountView:
    """One account's balances (ether and each configured token) and the fee, last read."""

    def __init__(self, reads: ChainReads, sender: Sender) -> None:
        self._reads = reads
        self._sender = sender
        self._last_balance: int | None = None
        self._last_tokens: dict[str, int] = {}
        self._last_fee: FeeRead | None = None

    @property
    def address(self) -> str:
        return self._sender.address

    async def balance(self, address: str | None = None) -> int:
        return await self._reads.node.balance(address or self.address)

    def saw_balance(self, balance: int) -> None:
        """A balance read elsewhere (the lock quote) is the latest one."""
        self._last_balance = balance

    async def refresh(self) -> None:
        """Read this account's balances now (ether and each token) for `text`, and the
        network's fee for `fee_note`; a configured token that is not what `evm.json` says (no
        code, other decimals) is refused here, so the operator hears of it before any deal
        needs it."""
        config = self._reads.config
        self._last_balance = await self.balance()
        self._last_fee = await self._sender.read_fees()
        problem: SettlementError | None = None
        for symbol, token in config.assets.items():
            try:
                await self._reads.check_asset(token)
                state = await read_token(self._reads.node, token, self.address, config.escrow)
            except SettlementError as exc:
                self._last_tokens.pop(symbol, None)
                problem = problem or exc
            else:
                self._last_tokens[symbol] = state.balance
        if problem is not None:
            raise problem

    def text(self) -> str:
        """The account and its last-read balances, for the faces (no I/O)."""
        config = self._reads.config
        if self._last_balance is None:
            held = "balance not read yet"
        else:
            held = format_units(self._last_balance, ETHER)
            for symbol, amount in sorted(self._last_tokens.items()):
                held += f"; {format_units(amount, config.assets[symbol])}"
        return f"account {self.address} on chain {config.chain_id}: {held}"

    def fee_note(self) -> str:
        read = self._last_fee
        if read is None or read.fits:
            return ""
        return (f"{read.reason()} when the account was last read: once confirmed, the "
                "transaction waits in the account's queue, journaled and unsigned, until the "
                "fee fits")

    async def holdings(self) -> dict[str, int]:
        """Every configured asset's balance of this account now, in minimal units."""
        config = self._reads.config
        held = {ETHER.symbol: await self.balance()}
        for symbol, token in config.assets.items():
            held[symbol] = (await read_token(self._reads.node, token, self.address,
                                             config.escrow)).balance
        return held
