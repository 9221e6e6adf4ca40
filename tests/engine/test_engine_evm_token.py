"""Two wallets trade a token on evm-htlc (one anvil for the module, a fresh escrow, token and
profiles per test): the offer in the token's minimal units, shown with its decimals; the lock
gate's account facts (token balance, allowance, gas in ether, the margin) and its refusal
before any dialog of what the account cannot cover; an asset the chain has no token for
refused at the draft and at the accept, with the reason; evm.json read and refused."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path

import pytest

from tclk_tui.engine.commands import execute
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.evm import load_evm_settings, save_evm_settings
from tclk_tui.engine.wallet import Wallet, wall_clock_ms
from tclk_tui.rails.evm import EvmConfig, TokenAsset
from tclk_tui.rehearsal.runner import RunningVenue
from tclk_tui.tui.deal_list import deal_option_text
from tests.engine.helpers import draft, open_wallet
from tests.rails.evm.chain import ETHER, Chain

UNITS = 1_500_000  # 1.5 USDC


@dataclasses.dataclass
class TokenPair:
    chain: Chain
    token: TokenAsset
    alice: Wallet  # the payer
    bob: Wallet

    async def sync(self) -> None:
        await self.alice.sync()
        await self.bob.sync()


async def _open(venue: RunningVenue, data_dir: Path, profile: str, config: EvmConfig,
                chain: Chain, wei: int) -> Wallet:
    save_evm_settings(data_dir / profile, config)
    wallet = await open_wallet(venue.url, data_dir, profile, clock=wall_clock_ms)
    if wei:
        await chain.fund(wallet.rails["evm-htlc"].address, wei)
    return wallet


@pytest.fixture
async def token_pair(venue: RunningVenue, tmp_path: Path,
                     shared_chain: Chain) -> AsyncIterator[TokenPair]:
    token = await shared_chain.token("USDC", 6)
    alice = await _open(venue, tmp_path, "alice", shared_chain.config, shared_chain, ETHER)
    bob = await _open(venue, tmp_path, "bob", shared_chain.config, shared_chain, ETHER // 100)
    try:
        yield TokenPair(shared_chain, token, alice, bob)
    finally:
        await alice.close()
        await bob.close()


def usdc_draft(**overrides: str):
    fields = {"rails": "evm-htlc", "asset": "USDC", "amount": str(UNITS), "claim_in_s": "900",
              "refund_gap_s": "900"}
    fields.update(overrides)
    return draft(**fields)


async def _accepted(pair: TokenPair, **overrides: str):
    view = await pair.alice.post_offer(usdc_draft(**overrides))
    await pair.bob.sync()
    await pair.bob.accept_offer(view.deal_id)
    await pair.alice.sync()
    return view.deal_id, pair.alice.deal(view.deal_id), pair.bob.deal(view.deal_id)


async def test_a_token_deal_reads_in_the_tokens_units_and_settles_to_the_unit(token_pair):
    pair, token = token_pair, token_pair.token
    a_rail, b_rail = pair.alice.rails["evm-htlc"], pair.bob.rails["evm-htlc"]
    await pair.chain.mint(token, a_rail.address, 2 * UNITS)
    deal_id, deal_a, deal_b = await _accepted(pair)
    view = deal_a.view()
    assert view.amount == str(UNITS)  # the wire keeps minimal units
    assert view.amount_text == "1.5 USDC"
    assert view.amount_minimal == f"{UNITS} units of USDC, 6 decimals"
    assert "1.5 USDC" in deal_option_text(view).plain
    board = await execute(pair.bob, "board", {"all": True})
    (row,) = [o for o in board["offers"] if o["offer"] == deal_id]
    assert row["amount"] == str(UNITS) and row["amount_text"] == "1.5 USDC"

    answer = await execute(pair.alice, "lock", {"deal": deal_id})  # the gate, not performed
    facts = {f["label"]: f["detail"] for f in answer["gate"]["facts"]}
    assert facts["amount"] == f"1.5 USDC ({UNITS} units of USDC, 6 decimals)"
    assert facts["token balance"] == f"3 USDC ({2 * UNITS} units of USDC, 6 decimals)"
    assert facts["allowance"].startswith("0 USDC") and "permit" in facts["paid by"]
    assert "ETH" in facts["estimated gas"] and "wei" in facts["estimated gas"]
    assert facts["margin"].endswith("left after the lock and its gas")
    assert answer["gate"]["allowed"], answer["gate"]["blockers"]

    done = await execute(pair.alice, "lock", {"deal": deal_id, "yes": True})
    assert done["performed"] and done["amount_text"] == "1.5 USDC"
    await pair.sync()
    assert deal_b.lock_check.verified, deal_b.lock_check
    reveal = deal_b.request_reveal()
    reveal_facts = {f.label: f.detail for f in reveal.facts}
    assert reveal_facts["amount locked"] == f"1.5 USDC ({UNITS} units of USDC, 6 decimals)"
    await deal_b.confirm(reveal, typed_code=reveal.confirm_code)
    await pair.sync()
    assert deal_a.state.status == deal_b.state.status == "claimed"
    assert await pair.chain.token_balance(token, b_rail.address) == UNITS
    assert await pair.chain.token_balance(token, a_rail.address) == UNITS


async def test_the_lock_gate_refuses_what_the_account_cannot_cover_before_any_dialog(
        token_pair):
    pair = token_pair
    await pair.chain.mint(pair.token, pair.alice.rails["evm-htlc"].address, UNITS - 1)
    deal_id, deal_a, _deal_b = await _accepted(pair)
    await pair.alice.watch_rails()  # the rail watch reads the payer's account for the gate
    request = deal_a.request_lock("evm-htlc")
    assert not request.allowed
    assert any("insufficient-token-balance" in b for b in request.blockers), request.blockers
    covered = {f.label: f for f in request.facts}["account covers the lock"]
    assert covered.ok is False
    answer = await execute(pair.alice, "lock", {"deal": deal_id})
    assert not answer["gate"]["allowed"]
    assert pair.alice.rails["evm-htlc"].txlog.all() == []
    # Ether for the gas is counted too: an ether deal larger than the balance is refused.
    _id, ether_deal, _ = await _accepted(pair, asset="ETH", amount=str(2 * ETHER))
    await ether_deal.quote_lock("evm-htlc")
    gate = ether_deal.request_lock("evm-htlc")
    facts = {f.label: f.detail for f in gate.facts}
    assert facts["balance"].startswith("1 ETH") and facts["amount plus gas"].startswith("2.000")
    assert facts["margin"].startswith("short by 1.000")
    assert any("insufficient" in b for b in gate.blockers), gate.blockers


async def test_an_asset_with_no_token_on_this_chain_is_refused_with_the_reason(token_pair):
    pair = token_pair
    problems = pair.alice.validate_offer_draft(usdc_draft(asset="DAI"))
    assert any(p.field == "asset" and "'DAI' has no token on chain 31337" in p.message
               and "it trades ETH, USDC" in p.message for p in problems), problems
    # An offer made elsewhere in an asset bob's chain does not trade is refused at the accept.
    rail = pair.alice.rails["evm-htlc"]
    rail.config = dataclasses.replace(rail.config, assets={
        **rail.config.assets, "DAI": dataclasses.replace(pair.token, symbol="DAI")})
    view = await pair.alice.post_offer(usdc_draft(asset="DAI"))
    await pair.bob.sync()
    with pytest.raises(EngineError, match="'DAI' has no token on chain 31337"):
        await pair.bob.accept_offer(view.deal_id)
    assert pair.bob.deals() == [] or all(v.deal_id != view.deal_id for v in pair.bob.deals())


def test_evm_json_names_assets_and_fee_caps_and_bad_ones_are_refused(tmp_path):
    config = EvmConfig(url="http://127.0.0.1:1", chain_id=31337, escrow="0x" + "11" * 20,
                       assets={"USDC": TokenAsset("USDC", "0x" + "22" * 20, 6)},
                       max_fee_gwei=Decimal("35.5"), max_priority_fee_gwei=Decimal(2))
    save_evm_settings(tmp_path, config)
    loaded = load_evm_settings(tmp_path)
    assert loaded is not None
    assert loaded.assets["USDC"].decimals == 6
    assert loaded.fee_cap.max_fee_wei == 35_500_000_000
    assert loaded.fee_cap.max_priority_fee_wei == 2_000_000_000
    base = json.loads((tmp_path / "evm.json").read_text())
    bad = {
        "ETH is the chain's own coin": {"assets": {"ETH": {"address": "0x" + "33" * 20,
                                                           "decimals": 18}}},
        "decimals must be a whole number": {"assets": {"USDC": {"address": "0x" + "33" * 20,
                                                                "decimals": "6"}}},
        "name the same token": {"assets": {"A": {"address": "0x" + "33" * 20, "decimals": 6},
                                           "B": {"address": "0x" + "33" * 20, "decimals": 6}}},
        "address must be 0x": {"assets": {"USDC": {"address": "nowhere", "decimals": 6}}},
        "cannot exceed max_fee_gwei": {"max_fee_gwei": 1, "max_priority_fee_gwei": 2},
        "max_fee_gwei must be above 0": {"max_fee_gwei": 0},
        "must be a number of gwei": {"max_fee_gwei": [1]},
    }
    for reason, change in bad.items():
        (tmp_path / "evm.json").write_text(json.dumps({**base, **change}))
        with pytest.raises(EngineError, match=reason):
            load_evm_settings(tmp_path)


async def test_identity_prints_the_evm_account_and_what_it_holds(token_pair):
    from tclk_tui import cli_text

    pair = token_pair
    rail = pair.alice.rails["evm-htlc"]
    await pair.chain.mint(pair.token, rail.address, UNITS)
    answer = await execute(pair.alice, "identity", {})
    evm = answer["evm"]
    assert evm["address"] == rail.address and evm["chain_id"] == 31337
    held = {b["asset"]: b for b in evm["balances"]}
    assert held["ETH"]["units"] == str(ETHER) and held["ETH"]["text"].startswith("1 ETH (")
    assert held["USDC"]["text"] == f"1.5 USDC ({UNITS} units of USDC, 6 decimals)"
    text = cli_text.identity(answer)
    assert f"evm-htlc account {rail.address} on chain 31337" in text
    assert "1.5 USDC" in text and "fund this address" in text
