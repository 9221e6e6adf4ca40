"""The rail's transaction journal against the chain: resuming, closing and reconciling rows.

A journaled transaction (see `txlog`) outlives the process that sent it. This object is the one
place that squares the journal with what the chain shows: a row resumed (the same bytes sent
again) when its lock, claim or refund acts; a row closed with its receipt when the chain already
shows the outcome; and after a restart every unfinished row looked up (`reconcile`). It is kept
apart from the sends because it is about rows, not about deals: the sends only ask it whether a
transaction of theirs is already on its way.
"""

from __future__ import annotations

import logging

from .reads import ChainReads
from .tx import Receipt, Sender
from .txlog import TxLog

__all__ = ["SETTLED_STATES", "TxJournal"]
log = logging.getLogger("tclk_tui.rails.evm.rail")  # the rail's story, under its one name

SETTLED_STATES = ("failed", "dropped")  # a journaled row in these never counts: send anew


class TxJournal:
    """One account's journaled transactions on one chain, squared with the chain."""

    def __init__(self, reads: ChainReads, sender: Sender, txlog: TxLog) -> None:
        self._reads = reads
        self._sender = sender
        self._txlog = txlog

    @property
    def _chain_id(self) -> int:
        return self._reads.config.chain_id

    async def resume(self, kind: str, lock_hex: str, data: bytes | None) -> Receipt | None:
        """The receipt of this lock's journaled `kind` transaction, sent again if need be;
        None when none is journaled (or it failed or was dropped: it is sent anew)."""
        journaled = self._txlog.find(self._chain_id, kind, lock_hex)
        if journaled is None or journaled.state in SETTLED_STATES:
            return None
        return await self._sender.resume(journaled, data)

    async def close(self, kind: str, lock_hex: str) -> None:
        """The chain already shows the outcome: mark a journaled transaction with its receipt."""
        row = self._txlog.find(self._chain_id, kind, lock_hex)
        if row is None:
            return
        for member in self._txlog.same_nonce(row):
            if member.state in ("signed", "sent"):
                receipt = await self._sender.receipt(member.tx_hash)
                if receipt is not None:
                    self._txlog.mark(member, "mined" if receipt.ok else "failed", receipt.block)

    async def reconcile(self) -> list[str]:
        """After a restart: every journaled transaction not known to be mined, looked up.

        A found receipt is journaled (and a replacement's other hash marked replaced); a
        transaction whose nonce the chain gave to another is marked dropped; one the chain
        does not know yet stays journaled and is sent again (the same bytes) by the next lock,
        claim or refund of its lock, never replaced by a new one. Returns one line per
        transaction for the operator.
        """
        notes = []
        address = self._sender.address
        mined_nonce = await self._reads.node.nonce(address, "latest")
        unfinished = self._txlog.unfinished(self._chain_id)
        log.info("evm reconcile: %d journaled transaction(s) not known to be mined on chain %d",
                 len(unfinished), self._chain_id)
        for row in unfinished:
            found = None
            for member in self._txlog.same_nonce(row):
                receipt = await self._sender.receipt(member.tx_hash)
                if receipt is not None:
                    found = (member, receipt)
                    break
            if found is not None:
                member, receipt = found
                for other in self._txlog.same_nonce(row):
                    if other.id != member.id and other.state in ("signed", "sent"):
                        self._txlog.mark(other, "replaced")
                if member.state in ("signed", "sent"):
                    log.info("evm reconcile: %s %s (journaled %s) found in block %d (%s)",
                             member.kind, member.tx_hash, member.state, receipt.block,
                             "ok" if receipt.ok else "reverted")
                    self._txlog.mark(member, "mined" if receipt.ok else "failed", receipt.block)
                    notes.append(f"evm-htlc: {member.kind} {member.tx_hash[:12]}… found in block "
                                 f"{receipt.block} ({'ok' if receipt.ok else 'reverted'})")
                continue
            if row.sender == address and mined_nonce > row.nonce:
                log.info("evm reconcile: %s %s (journaled %s) never mined and its nonce %d is "
                         "taken: dropped", row.kind, row.tx_hash, row.state, row.nonce)
                self._txlog.mark(row, "dropped")
                notes.append(f"evm-htlc: {row.kind} {row.tx_hash[:12]}… never mined and its "
                             f"nonce {row.nonce} is taken: it is sent anew when its deal acts")
                continue
            log.info("evm reconcile: %s %s (journaled %s) is not on chain yet: sent again, "
                     "unchanged, when its deal next acts", row.kind, row.tx_hash, row.state)
            notes.append(f"evm-htlc: {row.kind} {row.tx_hash[:12]}… is not on chain yet; "
                         "it is sent again, unchanged, when its deal next acts")
        return notes + await self._reconcile_waits()

    async def _reconcile_waits(self) -> list[str]:
        """Transactions journaled as waiting for the fee: those whose deadline passed while
        the wallet was closed are dropped, unsent; the others wait on (resumed when their deal
        acts)."""
        notes = []
        queue = self._sender.queue
        for row in queue.expire_due(await self._reads.next_block_time()):
            log.info("evm reconcile: %s for lock %s waited for the fee past its deadline: "
                     "dropped unsent", row.kind, row.lock_id)
            notes.append(f"evm-htlc: the {row.action} of contract {row.contract[:12]}… waited "
                         "for the fee past its deadline: dropped, never sent")
        for wait in queue.fee_waits():
            notes.append(f"evm-htlc: the {wait.action} of contract {wait.contract[:12]}… "
                         f"still waits for the fee (journaled): {wait.reason}")
        return notes
