"""evm-htlc figures on a local anvil (automine, 1 confirmation).

Run: python3 benchmarks/evm.py [--locks 20] [--deals 5]

lock→verified: from the payer's `lock` call (estimate, sign, journal, send, receipt, storage
read-back) to the payee's `verify_lock` answering True (chain id, escrow code, storage, every
term, confirmations). A whole deal: two wallets on a rehearsal venue in this process settle on
the rail, from posting the offer to both holding the claimed fold (accept, the account read for
the lock gate, deposit, verify on chain, claim on chain, reveal, read back), in ether and in a
6-decimal test token (the deposit carrying an EIP-2612 permit). Beside the token deal, its
floor: the same two transactions (the permit deposit and the claim) signed and sent straight to
the node and their receipts read, no wallet, no checks, no venue. Ten locks at once from one
account go through its transaction queue (ten nonces). Figures only; nothing here asserts a
speed.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tclk_tui.engine.commands import execute
from tclk_tui.engine.evm import save_evm_settings
from tclk_tui.engine.views import OfferDraft
from tclk_tui.engine.wallet import Wallet, wall_clock_ms
from tclk_tui.rails.evm.anvil import start_anvil
from tclk_tui.rails.evm.escrow import claim_data
from tclk_tui.rehearsal.runner import start_venue
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault
from tests.rails.evm.chain import Chain, fresh_key, hash_pair, make_terms, public_key

TARGET_DEAL_S = 2.0


def _ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[max(0, int(len(values) * 0.95) - 1)]
    return (f"median {statistics.median(values) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, "
            f"max {values[-1] * 1000:.1f} ms (n={len(values)})")


async def lock_to_verified(chain: Chain, n: int) -> list[float]:
    payer = await chain.rail("payer")
    payee = await chain.rail("payee")
    key = public_key(payee.key)
    times = []
    for _ in range(n):
        _, statement = hash_pair()
        terms = make_terms(await chain.now_s(), statement=statement)
        start = time.perf_counter()
        ref = await payer.lock(terms, payee_key=key)
        ok = await payee.verify_lock(terms, ref, payee_key=key)
        times.append(time.perf_counter() - start)
        assert ok
    return times


def _vault(directory: Path, profile: str) -> Vault:
    backend = FileVaultBackend(directory / f"{profile}.vault", passphrase=lambda: "bench",
                               kdf=KdfParams.minimum())
    return Vault(backend, profile=profile)


async def concurrent_locks(chain: Chain, n: int) -> float:
    """Seconds for `n` locks sent at once from one account, until all are locked."""
    payer = await chain.rail("concurrent")
    key = public_key(fresh_key())
    now = await chain.now_s()
    terms = [make_terms(now, statement=hash_pair()[1], amount=10**15 + i) for i in range(n)]
    start = time.perf_counter()
    await asyncio.gather(*(payer.lock(t, payee_key=key) for t in terms))
    elapsed = time.perf_counter() - start
    assert sorted(row.nonce for row in payer.txlog.all()) == list(range(n))
    return elapsed


async def token_floor(chain: Chain, n: int) -> list[float]:
    """The chain's own cost of a token deal: the permit deposit and the claim, sent raw."""
    token = chain.assets["USDC"]
    payer = await chain.rail("floor-payer")
    payee = await chain.rail("floor-payee")
    await chain.mint(token, payer.address, 10**12)
    times = []
    for _ in range(n):
        secret, statement = hash_pair()
        terms = make_terms(await chain.now_s(), statement=statement, amount=10**6,
                           asset="USDC")
        want = payer._expect(terms, public_key(payee.key))
        plan = await payer.funding.plan(want, await chain.now_s())  # the permit, signed
        lock = payer.lock_id_for(want)
        start = time.perf_counter()
        deposit = await chain.send_as(payer.key, chain.escrow, plan.data, gas=plan.gas)
        claim = await chain.send_as(payee.key, chain.escrow,
                                    claim_data(lock, bytes.fromhex(secret[2:])))
        times.append(time.perf_counter() - start)
        assert deposit["status"] == claim["status"] == "0x1"
    return times


async def whole_deals(chain: Chain, directory: Path, n: int, asset: str = "ETH",
                      amount: str = "10000000000000000") -> list[float]:
    times = []
    directory = directory / asset
    async with start_venue() as venue:
        wallets = []
        for name in ("alice", "bob"):
            save_evm_settings(directory / name, dataclasses.replace(chain.config))
            wallet = await Wallet.open(name, venue_url=venue.url, data_dir=directory,
                                       vault=_vault(directory, name), clock_ms=wall_clock_ms,
                                       follow=False)
            await chain.fund(wallet.rails["evm-htlc"].address, 10**20)
            if asset != "ETH":
                await chain.mint(chain.assets[asset], wallet.rails["evm-htlc"].address, 10**15)
            wallets.append(wallet)
        alice, bob = wallets
        try:
            for _ in range(n):
                draft = OfferDraft(role="payer", amount=amount, asset=asset,
                                   lock="hash", rails="evm-htlc", claim_in_s="900",
                                   refund_gap_s="900", expires_in_s="600")
                start = time.perf_counter()
                view = await alice.post_offer(draft)
                await bob.sync()
                await bob.accept_offer(view.deal_id)
                await alice.sync()
                deal_a = alice.deal(view.deal_id)
                done = await execute(alice, "lock", {"deal": view.deal_id, "yes": True})
                assert done["performed"], done
                await bob.sync()
                deal_b = bob.deal(view.deal_id)
                request = deal_b.request_reveal()
                await deal_b.confirm(request, typed_code=request.confirm_code)
                await alice.sync()
                times.append(time.perf_counter() - start)
                assert deal_a.state.status == deal_b.state.status == "claimed"
        finally:
            for wallet in wallets:
                await wallet.close()
    return times


async def main(locks: int, deals: int) -> None:
    with tempfile.TemporaryDirectory() as tmp, start_anvil() as anvil:
        async with Chain.open(anvil, Path(tmp)) as chain:
            print(f"anvil on {anvil.url}, automine, 1 confirmation")
            lock_times = await lock_to_verified(chain, locks)
            print(f"lock→verified (rail, payer lock + payee verify): {_ms(lock_times)}")
            deal_times = await whole_deals(chain, Path(tmp), deals)
            print(f"whole deal on evm-htlc (offer → claimed, two wallets): {_ms(deal_times)}; "
                  f"target < {TARGET_DEAL_S:.0f} s")
            await chain.token("USDC", 6)
            token_times = await whole_deals(chain, Path(tmp), deals, "USDC", "2500000")
            floor = await token_floor(chain, deals)
            print(f"whole token deal on evm-htlc (2.5 USDC, permit; offer → claimed): "
                  f"{_ms(token_times)}; target < {TARGET_DEAL_S:.0f} s")
            print(f"  its floor (the permit deposit and the claim sent raw, receipts read): "
                  f"{_ms(floor)}")
            print(f"ten locks at once from one account (ten nonces): "
                  f"{await concurrent_locks(chain, 10) * 1000:.1f} ms in all")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locks", type=int, default=20)
    parser.add_argument("--deals", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.locks, args.deals))
