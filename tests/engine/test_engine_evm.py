"""Two wallets settle on the evm-htlc rail: the rehearsal venue carries the frames, a real anvil
holds the ether. Each profile's rail comes from its own `evm.json` and its account key from its
own master seed; balances are checked to the wei, gas included."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tclk_tui.engine.events import Notice
from tclk_tui.engine.evm import EVM_ACCOUNT_DOMAIN, evm_account_public_key, save_evm_settings
from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.wallet import Wallet, wall_clock_ms
from tclk_tui.protocol.codec import try_decode_frame
from tclk_tui.protocol.locks import verify_secret
from tclk_tui.protocol.naming import deal_room
from tclk_tui.rails.evm import address_of_key, parse_ref
from tclk_tui.rehearsal.runner import RunningVenue
from tclk_tui.tui.deal_room import summary_text
from tests.engine.helpers import draft, file_vault, open_wallet
from tests.rails.evm.chain import ETHER, Chain

AMOUNT = 3 * 10**16  # 0.03 ETH


@dataclasses.dataclass
class EvmPair:
    chain: Chain
    alice: Wallet
    bob: Wallet

    async def sync(self) -> None:
        await self.alice.sync()
        await self.bob.sync()


async def _open(venue: RunningVenue, data_dir: Path, profile: str, node: Chain,
                wei: int, confirmations: int = 1) -> Wallet:
    save_evm_settings(data_dir / profile, dataclasses.replace(node.config,
                                                              confirmations=confirmations))
    wallet = await open_wallet(venue.url, data_dir, profile, clock=wall_clock_ms)
    if wei:
        await node.fund(wallet.rails["evm-htlc"].address, wei)
    return wallet


@pytest.fixture
async def evm_pair(venue: RunningVenue, tmp_path: Path, chain: Chain,
                   request) -> AsyncIterator[EvmPair]:
    confirmations = getattr(request, "param", 1)
    alice = await _open(venue, tmp_path, "alice", chain, ETHER)
    bob = await _open(venue, tmp_path, "bob", chain, ETHER // 100, confirmations)
    try:
        yield EvmPair(chain, alice, bob)
    finally:
        await alice.close()
        await bob.close()


def evm_draft(**overrides: str):
    fields = {"rails": "evm-htlc", "asset": "ETH", "amount": str(AMOUNT),
              "claim_in_s": "900", "refund_gap_s": "900"}
    fields.update(overrides)
    return draft(**fields)


async def _accepted(pair: EvmPair, **overrides: str):
    view = await pair.alice.post_offer(evm_draft(**overrides))
    await pair.bob.sync()
    await pair.bob.accept_offer(view.deal_id)
    await pair.alice.sync()
    return view.deal_id, pair.alice.deal(view.deal_id), pair.bob.deal(view.deal_id)


async def _lock(pair: EvmPair, deal) -> str:
    request = deal.request_lock("evm-htlc")
    assert request.allowed, request.blockers
    facts = {f.label: f.detail for f in request.facts}
    assert "refundAfterMs - 60 s" in facts["rail window"]
    await deal.confirm(request)
    await pair.sync()
    return deal.state.rail_ref


async def _fees(wallet: Wallet) -> int:
    rail = wallet.rails["evm-htlc"]
    total = 0
    for row in rail.txlog.all():
        receipt = await rail.sender.receipt(row.tx_hash)
        total += receipt.fee_wei
    return total


def test_the_account_key_has_its_own_derivation_domain(tmp_path):
    vault = file_vault(tmp_path, "x")
    vault.ensure_seed()
    assert EVM_ACCOUNT_DOMAIN not in ("tclk-tui/v1/payment-key", "tclk-tui/v1/preimage")
    first = evm_account_public_key(vault)
    assert evm_account_public_key(vault) == first  # cached, stable
    restored = file_vault(tmp_path / "again", "x")
    restored.restore_seed(vault.export_seed())
    assert evm_account_public_key(restored) == first  # one seed backup restores it


@pytest.mark.parametrize("lock", ["hash", "point"])
async def test_a_deal_on_evm_htlc_moves_the_ether_to_the_wei(evm_pair: EvmPair, lock: str):
    alice, bob, chain = evm_pair.alice, evm_pair.bob, evm_pair.chain
    a_rail, b_rail = alice.rails["evm-htlc"], bob.rails["evm-htlc"]
    a_before, b_before = await a_rail.balance(), await b_rail.balance()
    _offer_id, deal_a, deal_b = await _accepted(evm_pair, lock=lock)
    # The payee's paymentKey is its account key: the payer derives the address from it.
    assert address_of_key(deal_a.state.payee_key) == b_rail.address

    ref = await _lock(evm_pair, deal_a)
    parsed = parse_ref(ref)
    assert parsed.chain_id == chain.anvil.chain_id and parsed.escrow == chain.escrow
    assert deal_b.lock_check.verified, deal_b.lock_check
    reveal = deal_b.request_reveal()
    assert reveal.allowed, reveal.blockers
    facts = {f.label: f.detail for f in reveal.facts}
    assert facts["chain id"] == str(chain.anvil.chain_id)
    assert facts["confirmations"] == "1 of 1"
    assert facts["amount locked"] == f"0.03 ETH ({AMOUNT} wei)"
    assert facts["recipient"] == b_rail.address
    assert int(facts["timelock"]) == deal_a.offer["refundAfterMs"] // 1000 - 60
    assert "block" in facts
    await deal_b.confirm(reveal, typed_code=reveal.confirm_code)
    await evm_pair.sync()
    assert deal_a.state.status == deal_b.state.status == "claimed"

    assert await chain.node.balance(chain.escrow) == 0
    assert await a_rail.balance() == a_before - AMOUNT - await _fees(alice)
    assert await b_rail.balance() == b_before + AMOUNT - await _fees(bob)
    assert len(b_rail.txlog.all()) == 1 and len(a_rail.txlog.all()) == 1
    await alice.watch_rails()
    assert deal_a.view().rail_status == "claimed" and not deal_a.view().rail_disagrees


async def test_the_payer_learns_the_secret_from_the_chain_without_a_reveal_frame(
        evm_pair: EvmPair):
    alice, bob = evm_pair.alice, evm_pair.bob
    offer_id, deal_a, _deal_b = await _accepted(evm_pair)
    ref = await _lock(evm_pair, deal_a)
    secret = bob.keeper.deal_secret(offer_id)
    await bob.rails["evm-htlc"].claim(ref, secret)  # on chain only: no reveal posted
    events = alice.events.subscribe()
    await alice.watch_rails()
    assert alice.keeper.revealed_secret(offer_id) == secret
    assert verify_secret("hash", deal_a.state.statement, alice.keeper.revealed_secret(offer_id))
    view = deal_a.view()
    # The rail and the transcript disagree: shown as unknown, with both sides' facts.
    assert view.status == "unknown" and view.transcript_status == "locked"
    assert view.rail_status == "claimed" and view.rail_disagrees and view.disagreement
    # The deal room shows both sides' facts, and this wallet's account with its balance.
    shown = summary_text(view).plain
    assert "UNKNOWN:" in shown
    assert f"account {alice.rails['evm-htlc'].address} on chain 31337:" in shown
    assert " ETH (" in shown and " wei)" in shown
    notices = []
    while not events.empty():
        event = events.get_nowait()
        if isinstance(event, Notice):
            notices.append(event.text)
    assert any("secret was read from the rail" in n for n in notices)
    room = await alice.client.export(deal_room(deal_a.state.contract))
    assert not any((try_decode_frame(r.text) or {}).get("type") == "reveal"
                   for r in room.verified)


@pytest.mark.parametrize("evm_pair", [2], indirect=True)
async def test_a_reveal_waits_for_confirmations_and_a_reorg_takes_the_lock_back(
        evm_pair: EvmPair):
    chain = evm_pair.chain
    snapshot = await chain.node.call("evm_snapshot")
    _offer_id, deal_a, deal_b = await _accepted(evm_pair)
    await _lock(evm_pair, deal_a)
    refused = deal_b.request_reveal()
    assert not refused.allowed
    assert any("unconfirmed" in b for b in refused.blockers), refused.blockers
    with pytest.raises(GateRefused, match="unconfirmed"):
        await deal_b.confirm(refused, typed_code=refused.confirm_code)
    await chain.mine(1)
    await evm_pair.bob.watch_rails()
    assert deal_b.lock_check.verified and deal_b.request_reveal().allowed
    assert await chain.node.call("evm_revert", snapshot) is True
    await chain.mine(3)
    await evm_pair.bob.watch_rails()
    assert deal_b.lock_check.verified is False
    gate = deal_b.request_reveal()
    assert any("no-lock" in b for b in gate.blockers), gate.blockers
    assert deal_b.state.status == "locked"  # the transcript still says locked; the rail says no
    assert len(evm_pair.bob.rails["evm-htlc"].txlog.all()) == 0


async def test_a_lock_the_balance_cannot_cover_is_refused_before_anything_is_posted(
        evm_pair: EvmPair):
    _offer_id, deal_a, _deal_b = await _accepted(evm_pair, amount=str(2 * ETHER))
    request = deal_a.request_lock("evm-htlc")
    with pytest.raises(GateRefused, match="insufficient funds"):
        await deal_a.confirm(request)
    await evm_pair.sync()
    assert deal_a.state.status == "accepted"
    room = await evm_pair.alice.client.export(deal_room(deal_a.state.contract))
    assert room.verified == () or not list(room.verified)
    assert evm_pair.alice.rails["evm-htlc"].txlog.all() == []


async def test_the_offer_form_names_the_evm_rules_and_margin(evm_pair: EvmPair):
    problems = evm_pair.alice.validate_offer_draft(evm_draft(asset="FLOP", refund_gap_s="90"))
    by_field = {p.field: p.message for p in problems}
    assert "has no token on chain 31337" in by_field["asset"]
    assert "it trades ETH" in by_field["asset"]
    assert "refundAfterMs - 60 s" in by_field["refund_gap_s"]
    assert evm_pair.alice.validate_offer_draft(evm_draft()) == []
