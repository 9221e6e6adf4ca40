"""Two wallets on evm-htlc when the network's fee is above a profile's cap (one anvil for the
module): a confirmed lock, claim or refund is not refused but waits in the account's queue, and
the confirmation's answer, the deal view, `status`, the gates and the events say so, why in
gwei and how long it can wait; its frame follows once a block brings the fee under the cap;
the operator's cancel-wait drops it unsent; a cancelled deal's waiting lock never goes out; and
a wallet closed while it waits takes the wait up again when it opens, with one send."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path

import pytest

from tclk_tui.cli_text import TEXT
from tclk_tui.engine.commands import execute
from tclk_tui.engine.events import Notice
from tclk_tui.engine.evm import save_evm_settings
from tclk_tui.engine.wallet import Wallet, wall_clock_ms
from tclk_tui.rails.evm import EvmConfig
from tclk_tui.rails.evm import feewait as feewait_module
from tclk_tui.rehearsal.runner import RunningVenue
from tclk_tui.tui.deal_room import summary_text
from tests.engine.helpers import draft, open_wallet, until
from tests.rails.evm.chain import ETHER, Chain

GWEI = 10**9
AMOUNT = 10**15


@dataclasses.dataclass
class Pair:
    chain: Chain
    venue: RunningVenue
    data_dir: Path
    alice: Wallet  # the payer
    bob: Wallet

    async def sync(self) -> None:
        await self.alice.sync()
        await self.bob.sync()

    async def fee(self, gwei: float, *, mine: bool = False) -> None:
        await self.chain.node.call("anvil_setNextBlockBaseFeePerGas", hex(int(gwei * GWEI)))
        if mine:
            await self.chain.node.call("evm_mine")


def capped(config: EvmConfig) -> EvmConfig:
    return dataclasses.replace(config, max_fee_gwei=Decimal(2), max_priority_fee_gwei=Decimal(1))


async def _open(pair_dir: Path, venue: RunningVenue, profile: str, config: EvmConfig) -> Wallet:
    save_evm_settings(pair_dir / profile, config)
    return await open_wallet(venue.url, pair_dir, profile, clock=wall_clock_ms)


@pytest.fixture(autouse=True)
def quick_polls(monkeypatch):
    monkeypatch.setattr(feewait_module, "WAIT_POLL_S", 0.05)


@pytest.fixture
async def pair(venue: RunningVenue, tmp_path: Path, shared_chain: Chain) -> AsyncIterator[Pair]:
    config = capped(shared_chain.config)
    alice = await _open(tmp_path, venue, "alice", config)
    bob = await _open(tmp_path, venue, "bob", config)
    await shared_chain.fund(alice.rails["evm-htlc"].address, ETHER)
    await shared_chain.fund(bob.rails["evm-htlc"].address, ETHER // 10)
    found = Pair(shared_chain, venue, tmp_path, alice, bob)
    try:
        yield found
    finally:
        await found.fee(1, mine=True)
        await found.alice.close()
        await found.bob.close()


async def _accepted(pair: Pair, **overrides: str) -> str:
    fields = {"rails": "evm-htlc", "asset": "ETH", "amount": str(AMOUNT), "claim_in_s": "900",
              "refund_gap_s": "900"}
    fields.update(overrides)
    view = await pair.alice.post_offer(draft(**fields))
    await pair.bob.sync()
    await pair.bob.accept_offer(view.deal_id)
    await pair.alice.sync()
    return view.deal_id


def notices(queue) -> list[Notice]:
    out = []
    while not queue.empty():
        event = queue.get_nowait()
        if isinstance(event, Notice):
            out.append(event)
    return out


async def test_a_lock_over_the_cap_waits_says_so_everywhere_and_is_announced_once_mined(pair):
    deal_id = await _accepted(pair)
    deal_a = pair.alice.deal(deal_id)
    events = pair.alice.events.subscribe()
    await pair.fee(5)
    gate = await execute(pair.alice, "lock", {"deal": deal_id})
    assert gate["gate"]["allowed"], gate["gate"]["blockers"]  # waiting is no refusal
    facts = {f["label"]: f["detail"] for f in gate["gate"]["facts"]}
    assert "the network's base fee is 5 gwei" in facts["network fee"]
    assert "max_fee_gwei of 2 gwei" in facts["network fee"]

    done = await execute(pair.alice, "lock", {"deal": deal_id, "yes": True})
    assert done["performed"] and done["status"] == "accepted"
    said = done["fee_wait"]
    assert said.startswith("the lock waits for the fee: the network's base fee is 5 gwei")
    assert "above this profile's max_fee_gwei of 2 gwei" in said
    assert "it can wait until claimByMs" in said and "s from now" in said
    status = await execute(pair.alice, "status", {"deal": deal_id})
    assert status["fee_wait"] == said
    assert TEXT["lock"](done) == f"lock: {deal_id} is accepted, and {said}"  # the CLI's line
    assert f"waiting: {said}" in TEXT["status"](status).splitlines()
    assert f"WAITING: {said}" in summary_text(deal_a.view()).plain  # the app's deal room
    assert [n.text for n in notices(events) if n.deal_id == deal_id] == [said]
    rail = pair.alice.rails["evm-htlc"]
    assert rail.txlog.all() == []  # nothing signed while it waits
    again = deal_a.request_lock("evm-htlc")  # the gate again: it says what already waits
    waiting = {f.label: f.detail for f in again.facts}["waiting for the fee"]
    assert waiting.startswith(said) and "joins that wait" in waiting

    await pair.fee(1, mine=True)
    await until(lambda: deal_a.state.status == "locked", timeout_s=20)
    assert deal_a.view().fee_wait == ""
    await until(lambda: any("is done" in n.text for n in notices(events)), timeout_s=5)
    await pair.bob.sync()
    deal_b = pair.bob.deal(deal_id)
    await deal_b.check_lock()
    assert deal_b.lock_check is not None and deal_b.lock_check.verified, deal_b.lock_check
    assert [(r.kind, r.state) for r in rail.txlog.all()] == [("deposit", "mined")]


async def test_a_waiting_claim_is_dropped_by_the_operator_and_nothing_is_revealed(pair):
    deal_id = await _accepted(pair)
    await execute(pair.alice, "lock", {"deal": deal_id, "yes": True})
    await pair.bob.sync()
    deal_b = pair.bob.deal(deal_id)
    await deal_b.check_lock()
    await pair.fee(5)
    await pair.bob.watch_rails()  # the account and the fee, read for the gate
    gate = deal_b.request_reveal()
    assert "5 gwei" in {f.label: f.detail for f in gate.facts}["network fee"]
    done = await execute(pair.bob, "reveal", {"deal": deal_id, "confirm": gate.confirm_code})
    assert done["status"] == "locked"
    assert done["fee_wait"].startswith("the claim waits for the fee")
    assert "the escrow's timelock less 60 s" in done["fee_wait"]
    events = pair.bob.events.subscribe()
    dropped = await execute(pair.bob, "cancel-wait", {"deal": deal_id})
    assert dropped["cancelled"] == ["claim"] and dropped["fee_wait"] is None
    await until(lambda: any("ended without being sent" in n.text for n in notices(events)),
                timeout_s=10)
    assert TEXT["cancel-wait"](dropped) == f"{deal_id}: dropped unsent: claim"
    again = await execute(pair.bob, "cancel-wait", {"deal": deal_id})
    assert again["cancelled"] == []
    assert TEXT["cancel-wait"](again).startswith(f"{deal_id}: nothing dropped")
    assert pair.bob.rails["evm-htlc"].txlog.all() == []  # no claim: the secret never left
    await pair.fee(1, mine=True)
    await pair.alice.sync()
    assert pair.alice.deal(deal_id).state.status == "locked"
    assert await pair.alice.rails["evm-htlc"].lock_status(
        pair.alice.deal(deal_id).state.rail_ref) == "locked"


async def test_a_deal_cancelled_while_its_lock_waits_never_locks(pair):
    deal_id = await _accepted(pair)
    await pair.fee(5)
    await execute(pair.alice, "lock", {"deal": deal_id, "yes": True})
    rail = pair.alice.rails["evm-htlc"]
    assert [w.action for w in rail.fee_waits()] == ["lock"]
    cancelled = await execute(pair.alice, "cancel", {"deal": deal_id, "yes": True})
    assert cancelled["status"] == "cancelled"
    assert rail.fee_waits() == ()
    await pair.fee(1, mine=True)
    await pair.alice.fee_waits.once(list(pair.alice.book))
    assert rail.txlog.all() == []
    assert [w.state for w in rail.txlog.all_waits()] == ["cancelled"]

    # Cancelled by the counterparty: the desk drops the waiting lock once the fold says so.
    other = await _accepted(pair)
    await pair.fee(5)
    await execute(pair.alice, "lock", {"deal": other, "yes": True})
    await execute(pair.bob, "cancel", {"deal": other, "yes": True})
    await pair.alice.sync()
    assert pair.alice.deal(other).state.status == "cancelled"
    await pair.alice.fee_waits.once(list(pair.alice.book))
    assert rail.fee_waits() == ()
    assert rail.txlog.all() == []


async def test_a_wallet_closed_while_its_lock_waits_takes_the_wait_up_when_it_opens(pair):
    deal_id = await _accepted(pair)
    await pair.fee(5)
    done = await execute(pair.alice, "lock", {"deal": deal_id, "yes": True})
    assert done["fee_wait"]
    address = pair.alice.rails["evm-htlc"].address
    await pair.alice.close()  # the daemon stops mid-wait: the journal keeps the wait
    pair.alice = await open_wallet(pair.venue.url, pair.data_dir, "alice", clock=wall_clock_ms)
    view = pair.alice.deal(deal_id).view()
    assert view.fee_wait.startswith("the lock waits for the fee")
    assert "journaled: it goes on while the daemon or the app runs" in view.fee_wait
    await pair.alice.fee_waits.once(list(pair.alice.book))  # as the daemon's desk does
    rail = pair.alice.rails["evm-htlc"]
    await until(lambda: bool(rail.fee_waits()) and rail.fee_waits()[0].held, timeout_s=10)
    assert len(rail.txlog.all_waits()) == 1  # the same wait, taken up, never a second
    await pair.fee(1, mine=True)
    deal_a = pair.alice.deal(deal_id)
    await until(lambda: deal_a.state.status == "locked", timeout_s=20)
    assert await pair.chain.node.nonce(address, "latest") == 1  # one deposit, ever
    assert [w.state for w in rail.txlog.all_waits()] == ["sent"]
