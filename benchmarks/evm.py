"""evm-htlc figures on a local anvil (automine, 1 confirmation).

Run: python3 benchmarks/evm.py [--locks 20] [--deals 5]

lock→verified: from the payer's `lock` call (estimate, sign, journal, send, receipt, storage
read-back) to the payee's `verify_lock` answering True (chain id, escrow code, storage, every
term, confirmations). A whole deal: two wallets on a rehearsal venue in this process settle on
the rail, from posting the offer to both holding the claimed fold (accept, deposit, verify on
chain, claim on chain, reveal, read back). Figures only; nothing here asserts a speed.
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

from tclk_tui.engine.evm import save_evm_settings
from tclk_tui.engine.views import OfferDraft
from tclk_tui.engine.wallet import Wallet, wall_clock_ms
from tclk_tui.rails.evm.anvil import start_anvil
from tclk_tui.rehearsal.runner import start_venue
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault
from tests.rails.evm.chain import Chain, hash_pair, make_terms, public_key

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


async def whole_deals(chain: Chain, directory: Path, n: int) -> list[float]:
    times = []
    async with start_venue() as venue:
        wallets = []
        for name in ("alice", "bob"):
            save_evm_settings(directory / name, dataclasses.replace(chain.config))
            wallet = await Wallet.open(name, venue_url=venue.url, data_dir=directory,
                                       vault=_vault(directory, name), clock_ms=wall_clock_ms,
                                       follow=False)
            await chain.fund(wallet.rails["evm-htlc"].address, 10**20)
            wallets.append(wallet)
        alice, bob = wallets
        try:
            for _ in range(n):
                draft = OfferDraft(role="payer", amount="10000000000000000", asset="ETH",
                                   lock="hash", rails="evm-htlc", claim_in_s="900",
                                   refund_gap_s="900", expires_in_s="600")
                start = time.perf_counter()
                view = await alice.post_offer(draft)
                await bob.sync()
                await bob.accept_offer(view.deal_id)
                await alice.sync()
                deal_a = alice.deal(view.deal_id)
                await deal_a.confirm(deal_a.request_lock("evm-htlc"))
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


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locks", type=int, default=20)
    parser.add_argument("--deals", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.locks, args.deals))
