"""What the chain holds, read and checked: the chain id, the escrow's code, the tokens, the locks.

Nothing here sends a transaction. It is the rail's reading half, kept apart from the sending
half (`payer`, `settle`) so every rule a payee checks before revealing (`inspect_lock`) reads
the chain through one object, and the sends re-read the escrow through the same one after
every transaction: a node's receipt is never believed by itself.

Time on chain is the next block's: a chain that mines only on demand still stamps its next
block with the present, so a refund is judged against that, never against a last block that
may be hours old.
"""

from __future__ import annotations

from eth_utils import to_checksum_address

from tclk_tui.rails.base import Clock, LockTerms, SettlementError

from .config import EvmConfig, LockReport
from .escrow import CLAIMED_TOPIC, OnChainLock, artifact, decode_lock, lock_id, locks_data
from .expect import Expectation, asset_of, expect, format_units
from .ref import EvmRef, parse_ref
from .rpc import NodeClient, hex_int
from .token import TokenAsset, check_token

__all__ = ["ChainReads", "refuse", "secret_bytes"]


def refuse(message: str, code: str) -> SettlementError:
    return SettlementError(f"tclk: evm-htlc {message}", code=code)


def secret_bytes(secret: object) -> bytes:
    if not isinstance(secret, str):
        raise refuse("secret must be 0x-hex", "bad-secret")
    try:
        raw = bytes.fromhex(secret.removeprefix("0x"))
    except ValueError:
        raise refuse("secret must be 0x-hex", "bad-secret") from None
    if len(raw) != 32:
        raise refuse("secret must be 32 bytes", "bad-secret")
    return raw


class ChainReads:
    """The chain as this wallet's profile expects it: checked once (chain id, escrow code,
    each token's code and decimals), then read (locks, block times, Claimed events)."""

    def __init__(self, config: EvmConfig, node: NodeClient, clock: Clock) -> None:
        self.config = config
        self.node = node
        self._clock = clock
        self._escrow_checked = False
        self._chain_checked = False
        self._tokens_checked: set[str] = set()

    # -- what the profile names -----------------------------------------------------------

    def asset(self, symbol: object) -> TokenAsset:
        """The one token an offer's asset names on this chain (SettlementError otherwise)."""
        return asset_of(symbol, self.config.assets, self.config.chain_id)

    def expect(self, terms: LockTerms, payee_key: str | None) -> Expectation:
        return expect(terms, payee_key, self.config.assets, self.config.chain_id)

    def own_ref(self, ref: str) -> EvmRef:
        parsed = parse_ref(ref)
        if parsed is None:
            raise refuse("ref is not eip155:<chain id>:<escrow>:<lock id>", "malformed-ref")
        if parsed.chain_id != self.config.chain_id:
            raise refuse(f"ref names chain {parsed.chain_id}, this wallet settles on chain "
                         f"{self.config.chain_id}", "wrong-chain")
        if parsed.escrow != self.config.escrow:
            raise refuse(f"ref names escrow {parsed.escrow}, this wallet expects "
                         f"{self.config.escrow}", "other-escrow")
        return parsed

    # -- the chain, checked ---------------------------------------------------------------

    async def check_chain(self) -> None:
        """The node serves the configured chain and the escrow there is the shipped one."""
        if not self._chain_checked:
            served = await self.node.chain_id()
            if served != self.config.chain_id:
                raise refuse(f"node serves chain {served}, this profile expects chain "
                             f"{self.config.chain_id}", "wrong-chain")
            self._chain_checked = True
        if not self._escrow_checked:
            code = await self.node.code(self.config.escrow)
            if code != artifact().runtime:
                raise refuse(f"no HtlcEscrow at {self.config.escrow} on chain "
                             f"{self.config.chain_id} (its code is not the shipped escrow's)",
                             "not-the-escrow")
            self._escrow_checked = True

    async def check_asset(self, asset: TokenAsset) -> None:
        """A configured token has code here and the configured decimals (checked once)."""
        if asset.native or asset.symbol in self._tokens_checked:
            return
        await check_token(self.node, asset)
        self._tokens_checked.add(asset.symbol)

    # -- reads ----------------------------------------------------------------------------

    async def read_lock(self, lock: bytes, block: str = "latest") -> OnChainLock:
        raw = await self.node.eth_call(self.config.escrow, "0x" + locks_data(lock).hex(), block)
        try:
            return decode_lock(raw)
        except ValueError as exc:
            raise refuse(f"escrow answered an unreadable lock ({exc})", "bad-node") from None

    async def chain_time(self) -> tuple[int, int]:
        """(latest block number, its timestamp)."""
        head = await self.node.block("latest")
        return hex_int(head.get("number"), "block number"), hex_int(head.get("timestamp"),
                                                                    "block time")

    async def next_block_time(self) -> int:
        """The earliest timestamp the next block can carry: the pending block's, and never
        less than one second past the latest block's (a node without a pending block)."""
        _number, latest = await self.chain_time()
        try:
            pending = hex_int((await self.node.block("pending")).get("timestamp"),
                              "pending block time")
        except SettlementError:
            pending = 0
        return max(latest + 1, pending)

    def clock_s(self) -> int:
        return int(self._clock()) // 1000

    async def claimed_event_secret(self, parsed: EvmRef, from_block: int) -> str | None:
        logs = await self.node.call("eth_getLogs", {
            "address": self.config.escrow, "fromBlock": hex(from_block), "toBlock": "latest",
            "topics": [CLAIMED_TOPIC, parsed.lock_id]})
        if not isinstance(logs, list):
            raise refuse("node answered logs that are not a list", "bad-node")
        for log in logs:
            data = log.get("data") if isinstance(log, dict) else None
            if (isinstance(data, str) and len(data) == 66
                    and str(log.get("address", "")).lower() == self.config.escrow.lower()
                    and not log.get("removed")):
                return "0x" + data[2:].lower()
        return None

    # -- what a payee checks before revealing ---------------------------------------------

    async def inspect_lock(self, terms: LockTerms, ref: str, *,
                           payee_key: str | None = None) -> LockReport:
        """Every rule a payee checks before revealing, the first broken one named."""
        def broken(rule: str, detail: str, facts=(), held=None, confs=0) -> LockReport:
            return LockReport(False, rule, detail, tuple(facts), confs, held)

        try:
            want = self.expect(terms, payee_key)
            parsed = self.own_ref(ref)
            await self.check_chain()
            await self.check_asset(want.asset)
        except SettlementError as exc:
            return broken(exc.code, str(exc))
        held = await self.read_lock(parsed.lock_bytes)
        head, _now = await self.chain_time()
        facts = [("chain id", str(self.config.chain_id)), ("block", str(head)),
                 ("escrow", self.config.escrow)]
        if held.status is None:
            return broken("no-lock", "the escrow holds no lock under this ref (never made, or "
                          "removed by a reorg)", facts)
        confs = max(0, head - held.deposited_block + 1)
        if not want.asset.native:
            facts.append(("token", f"{want.asset.symbol} at {held.token}"))
        facts += [("confirmations", f"{confs} of {self.config.confirmations}"),
                  ("amount locked", format_units(held.amount, want.asset)),
                  ("recipient", held.recipient), ("timelock", str(held.timelock)),
                  ("status on chain", held.status)]
        rebuilt = lock_id(held.contract, want.kind, held.statement, held.recipient,
                          held.timelock, held.depositor, held.token)
        checks = [
            (rebuilt.hex() == parsed.lock_id[2:], "lock-id",
             "the lock id does not match the lock's own terms"),
            (held.contract == want.contract, "wrong-contract",
             "the lock is for another contract"),
            (held.token == to_checksum_address(want.token), "wrong-token",
             f"the lock holds token {held.token}, the contract's {want.asset.symbol} is "
             f"{want.token} here"),
            (held.kind == terms.lock, "wrong-kind", f"the lock is a {held.kind} lock"),
            (held.statement == want.statement, "wrong-statement",
             "the lock's statement differs"),
            (held.recipient == want.recipient, "wrong-recipient",
             f"the lock pays {held.recipient}, the payee's paymentKey is {want.recipient}"),
            (held.amount == want.amount, "wrong-amount",
             f"the lock holds {format_units(held.amount, want.asset)}, the contract says "
             f"{format_units(want.amount, want.asset)}"),
            (held.timelock == want.timelock, "wrong-timelock",
             f"the lock's timelock is {held.timelock}, the contract's is {want.timelock}"),
            (held.status == "locked", "not-locked", f"the lock is {held.status}"),
            (confs >= self.config.confirmations, "unconfirmed",
             f"{confs} of {self.config.confirmations} confirmations"),
        ]
        for ok, rule, detail in checks:
            if not ok:
                return broken(rule, detail, facts, held, confs)
        return LockReport(True, "ok", "lock verified on chain with matching terms",
                          tuple(facts), confs, held)

    async def lock_status(self, ref: str) -> str | None:
        parsed = self.own_ref(ref)
        return (await self.read_lock(parsed.lock_bytes)).status

    async def claimed_with(self, ref: str) -> str | None:
        """The secret of the completed claim, from the escrow's Claimed event."""
        parsed = self.own_ref(ref)
        held = await self.read_lock(parsed.lock_bytes)
        if held.status != "claimed":
            return None
        return await self.claimed_event_secret(parsed, held.deposited_block)
