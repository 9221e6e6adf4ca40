"""The payee's claim and the payer's refund: each checked on chain, sent once, read back.

A claim's calldata carries the secret, so it is sent only when the escrow holds the lock, the
secret opens its statement and the escrow's timelock (less the margin) is still ahead; a
refund only once the timelock has passed on chain. Either one found already done on chain (by
this wallet, before a crash) closes its journal row instead of sending again.

Its own object beside the payer's lock (`payer`): these two spend nothing but gas and touch no
allowance, and they share the one rule that settles a lock, `settled`.
"""

from __future__ import annotations

from tclk_tui.protocol.locks import verify_secret

from .escrow import claim_data, refund_data
from .expect import TIMELOCK_MARGIN_S
from .feewait import WaitPlan
from .reads import ChainReads, refuse, secret_bytes
from .reconcile import TxJournal
from .ref import EvmRef
from .tx import Receipt, Sender

__all__ = ["Settler"]


class Settler:
    """Claims and refunds this account's side of locks in the escrow."""

    def __init__(self, reads: ChainReads, sender: Sender, journal: TxJournal) -> None:
        self._reads = reads
        self._sender = sender
        self._journal = journal

    async def claim(self, parsed: EvmRef, secret: str) -> None:
        reads = self._reads
        held = await reads.read_lock(parsed.lock_bytes)
        raw_secret = secret_bytes(secret)
        if held.status == "claimed":
            if held.secret == raw_secret:
                await self._journal.close("claim", parsed.lock_id)
                return  # our own claim, mined before a crash: never a second one
            raise refuse("the lock is already claimed", "not-locked")
        if held.status != "locked":
            raise refuse(f"claim on a {held.status or 'missing'} lock", "not-locked")
        if held.kind is None or not verify_secret(held.kind, "0x" + held.statement.hex(),
                                                  secret):
            raise refuse("secret does not open the statement", "bad-secret")
        data = claim_data(parsed.lock_bytes, raw_secret)
        receipt = await self._journal.resume("claim", parsed.lock_id, data)
        if receipt is not None:
            return await self._settled(receipt, parsed, "claimed")
        now_s = max(await reads.next_block_time(), reads.clock_s())
        if now_s >= held.timelock:
            raise refuse("claim at or after the escrow's timelock", "claim-too-late")
        wait = WaitPlan(contract="0x" + held.contract.hex(), action="claim",
                        until_s=held.timelock - TIMELOCK_MARGIN_S,
                        until_what=f"the escrow's timelock less {TIMELOCK_MARGIN_S} s",
                        after="the claim is dropped unsent: mined later it would revert, and "
                              "publish the secret for nothing")
        receipt = await self._sender.send(kind="claim", lock_id=parsed.lock_id,
                                          to=reads.config.escrow, data=data, value=0,
                                          keep_raw=False, wait=wait)
        await self._settled(receipt, parsed, "claimed")

    async def refund(self, parsed: EvmRef) -> None:
        reads = self._reads
        held = await reads.read_lock(parsed.lock_bytes)
        if held.status == "refunded":
            await self._journal.close("refund", parsed.lock_id)
            return
        if held.status != "locked":
            raise refuse(f"refund on a {held.status or 'missing'} lock", "not-locked")
        data = refund_data(parsed.lock_bytes)
        receipt = await self._journal.resume("refund", parsed.lock_id, data)
        if receipt is not None:
            return await self._settled(receipt, parsed, "refunded")
        now_s = await reads.next_block_time()
        if now_s < held.timelock:
            raise refuse(f"refund before the escrow's timelock ({held.timelock - now_s} s "
                         "to go on chain)", "refund-too-early")
        wait = WaitPlan(contract="0x" + held.contract.hex(), action="refund")
        receipt = await self._sender.send(kind="refund", lock_id=parsed.lock_id,
                                          to=reads.config.escrow, data=data, value=0,
                                          keep_raw=True, wait=wait)
        await self._settled(receipt, parsed, "refunded")

    async def _settled(self, receipt: Receipt, parsed: EvmRef, status: str) -> None:
        if not receipt.ok:
            raise refuse(f"the transaction {receipt.tx_hash} reverted", "reverted")
        held = await self._reads.read_lock(parsed.lock_bytes)
        if held.status != status:
            raise refuse(f"the node reported the transaction mined but the escrow says "
                         f"{held.status}: the receipt is not believed", "receipt-mismatch")
