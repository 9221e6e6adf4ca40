"""The demo: a rehearsal venue, a scripted counterparty agent, and a throwaway profile.

Everything runs in one process on loopback. The counterparty is a real Wallet driven by a small
script that behaves as an agent would: it posts offers, accepts one of yours, locks on the
`paper` rail (which settles nothing), reveals or refunds, and narrates in heartbeat notes. The
operator's profile lives in a temporary directory with an encrypted-file vault, so nothing
touches the network or a real profile.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from tclk_tui.engine.deal import DealSession
from tclk_tui.engine.errors import EngineError
from tclk_tui.engine.events import BoardChanged, DeadlineWarning, DealAdvanced
from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.views import OfferDraft
from tclk_tui.engine.wallet import Wallet, wall_clock_ms

if TYPE_CHECKING:  # the chain and its rail load the Ethereum libraries: only `--rail evm-htlc`
    from tclk_tui.engine.demo_chain import DemoChain
    from tclk_tui.rails.evm.rail import EvmHtlcRail
from tclk_tui.rails.memory import MemoryRail
from tclk_tui.rehearsal.runner import RunningVenue, start_venue
from tclk_tui.rehearsal.server import VenueConfig
from tclk_tui.vault.file_backend import FileVaultBackend
from tclk_tui.vault.file_format import KdfParams
from tclk_tui.vault.seed import Vault

DEMO_OFFERS = (
    OfferDraft(role="payer", amount="250000", asset="FLOP", lock="hash", rails="paper",
               claim_in_s="1800", refund_gap_s="1800", expires_in_s="900",
               job="a2a:translate-report"),
    OfferDraft(role="payer", amount="1200", asset="USDC", lock="hash", rails="paper,memory",
               claim_in_s="2400", refund_gap_s="1800", expires_in_s="1200",
               job="a2a:summarise-filings"),
    OfferDraft(role="payer", amount="5000", asset="FLOP", lock="point", rails="paper",
               claim_in_s="3600", refund_gap_s="1800", expires_in_s="1500",
               job="acp:4471"),
)


def demo_vault(directory: Path, profile: str) -> Vault:
    """An encrypted-file vault with a random passphrase that dies with the demo."""
    passphrase = secrets.token_urlsafe(24)
    backend = FileVaultBackend(directory / f"{profile}.vault", passphrase=lambda: passphrase,
                               kdf=KdfParams.interactive())
    return Vault(backend, profile=profile)


class DemoCounterparty:
    """A scripted agent on the other side of every demo deal."""

    def __init__(self, wallet: Wallet, offers: tuple[OfferDraft, ...] = DEMO_OFFERS,
                 rail: str = "paper") -> None:
        self.wallet = wallet
        self.offers = offers
        self.rail = rail
        self._task: asyncio.Task[None] | None = None
        self._narrated: set[tuple[str, str]] = set()
        self._busy: set[str] = set()

    async def start(self) -> None:
        for draft in self.offers:
            await self.wallet.post_offer(draft)
        self._task = asyncio.create_task(self._run(), name="demo-counterparty")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        queue = self.wallet.events.subscribe()
        try:
            while True:
                event = await queue.get()
                try:
                    if isinstance(event, BoardChanged) and event.added:
                        await self._consider_offers(event.added)
                    elif isinstance(event, DealAdvanced | DeadlineWarning):
                        await self._advance(event.deal_id)
                except (EngineError, GateRefused) as exc:
                    await self._say_any(f"I could not go on: {exc}")
        finally:
            self.wallet.events.unsubscribe(queue)

    async def _consider_offers(self, offer_ids: tuple[str, ...]) -> None:
        for offer_id in offer_ids:
            row = self.wallet.board.get(offer_id)
            if row is None or row.mine or row.status != "open":
                continue
            with contextlib.suppress(EngineError):
                await self.wallet.accept_offer(offer_id)
                await self._advance(offer_id)

    async def _advance(self, deal_id: str) -> None:
        if deal_id in self._busy:
            return
        self._busy.add(deal_id)
        try:
            await self._step(deal_id)
        finally:
            self._busy.discard(deal_id)

    async def _step(self, deal_id: str) -> None:
        try:
            deal = self.wallet.deal(deal_id)
        except EngineError:
            return
        status, role = deal.state.status, deal.role
        if status == "accepted" and role == "payer":
            rail = self.rail if self.rail in deal.offer["rails"] else None
            await self._narrate(deal, "accepted", "Thanks for taking this job. Locking the "
                                f"payment on the {rail or 'offered'} rail now.")
            request = deal.request_lock(rail)
            if request.allowed:
                await deal.confirm(request)
                what = ("Locked on paper (a rehearsal rail that settles nothing)." if rail ==
                        "paper" else f"Locked on {rail}: test {deal.offer['asset']} in the "
                        "escrow on the demo chain.")
                await self._narrate(deal, "locked", f"{what} Reveal your secret when the work "
                                    "is done.")
        elif status == "accepted" and role == "payee":
            await self._narrate(deal, "accepted", "Accepted. I hold the secret; lock when you "
                                "are ready and I will claim once I have checked the rail.")
        elif status == "locked" and role == "payee":
            await deal.check_lock()
            request = deal.request_reveal()
            if request.allowed and not request.late:
                await self._narrate(deal, "verified", "Your lock checks out on the rail. "
                                    "Delivering and claiming now.")
                await deal.confirm(request, typed_code=request.confirm_code)
        elif status == "locked" and role == "payer":
            request = deal.request_refund()
            if request.allowed:  # the payee never claimed and the refund window is open
                await self._narrate(deal, "refunding", "No reveal before the deadline; taking "
                                    "the payment back from the rail.")
                await deal.confirm(request)
        elif status in ("claimed", "refunded") and (deal_id, "receipt") not in self._narrated:
            self._narrated.add((deal_id, "receipt"))
            with contextlib.suppress(GateRefused, EngineError):
                await deal.receipt()

    async def _narrate(self, deal: DealSession, key: str, note: str) -> None:
        if (deal.deal_id, key) in self._narrated or "heartbeat" not in deal.actions():
            return
        self._narrated.add((deal.deal_id, key))
        with contextlib.suppress(EngineError):  # a narration waits on no write budget
            await deal.heartbeat(note)

    async def _say_any(self, note: str) -> None:
        for view in self.wallet.deals():
            if "heartbeat" in view.actions:
                with contextlib.suppress(GateRefused, EngineError):
                    await self.wallet.deal(view.deal_id).heartbeat(note[:200])
                return


@dataclass
class DemoSession:
    venue: RunningVenue
    wallet: Wallet
    counterparty: DemoCounterparty
    directory: Path
    chain: DemoChain | None = None  # the local anvil, for `--rail evm-htlc`


@contextlib.asynccontextmanager
async def demo_session(clock_ms: Callable[[], int] = wall_clock_ms,
                       profile: str = "demo", rail: str = "paper",
                       asset: str = "ETH") -> AsyncIterator[DemoSession]:
    """`asset` (ETH or USDC, a test token on the demo chain) for `rail="evm-htlc"` only."""
    if rail not in ("paper", "evm-htlc"):
        raise EngineError(f"the demo runs on paper or evm-htlc, not {rail}")
    if asset != "ETH" and rail != "evm-htlc":
        raise EngineError("the demo trades a token on evm-htlc only (--rail evm-htlc)")
    with tempfile.TemporaryDirectory(prefix="tclk-demo-") as tmp:
        directory = Path(tmp)
        async with contextlib.AsyncExitStack() as stack:
            chain = None
            if rail == "evm-htlc":
                from tclk_tui.engine.demo_chain import demo_chain

                chain = await stack.enter_async_context(demo_chain(directory, asset))
                chain.configure(directory / "counterparty")
                chain.configure(directory / profile)
            session = await stack.enter_async_context(
                _session(directory, clock_ms, profile, chain))
            yield session


@contextlib.asynccontextmanager
async def _session(directory: Path, clock_ms: Callable[[], int], profile: str,
                   chain: DemoChain | None) -> AsyncIterator[DemoSession]:
    # The venue stamps records with the same clock, so deadlines judged from the signed
    # transcript agree with the wallets' own view of the time. It publishes the hosted
    # instance's rates (600 reads and 300 writes a minute, not the defaults' 120 and 30) and
    # 200 new rooms a day, so a long demo never runs dry; both wallets keep to half of each,
    # and share the real cap of 4 waiting reads.
    config = VenueConfig(clock=lambda: clock_ms() / 1000, rate_read=600, rate_write=300,
                         rate_rooms_per_day=200)
    async with start_venue(config) as venue:
        memory = MemoryRail(clock=clock_ms)
        agent_wallet = await Wallet.open(
            "counterparty", venue_url=venue.url, data_dir=directory,
            vault=demo_vault(directory, "counterparty"), clock_ms=clock_ms,
            rails={"memory": memory})
        await agent_wallet.advertise()  # its DID note exists before anyone looks it up
        wallet = await Wallet.open(
            profile, venue_url=venue.url, data_dir=directory,
            vault=demo_vault(directory, profile), clock_ms=clock_ms,
            rails={"memory": memory})
        if chain is not None:
            for funded in (agent_wallet, wallet):
                await chain.fund(_evm_address(funded))
            from tclk_tui.engine.demo_chain import demo_offers

            agent = DemoCounterparty(agent_wallet, demo_offers(chain.asset.symbol),
                                     rail="evm-htlc")
        else:
            agent = DemoCounterparty(agent_wallet)
        try:
            await agent.start()
            yield DemoSession(venue, wallet, agent, directory, chain)
        finally:
            await agent.stop()
            await wallet.close()
            await agent_wallet.close()


async def _wait(predicate: Callable[[], bool], timeout_s: float) -> None:
    async with asyncio.timeout(timeout_s):
        while not predicate():
            await asyncio.sleep(0.02)


async def run_headless(out: TextIO, timeout_s: float = 30.0, rail: str = "paper",
                       asset: str = "ETH") -> str:
    """Play one deal as the operator (payee of the agent's first offer); print what happened,
    with both accounts' balances before and after on a chain."""
    async with demo_session(rail=rail, asset=asset) as session:
        wallet = session.wallet
        await _wait(lambda: len(wallet.board) >= len(session.counterparty.offers), timeout_s)
        rows = [r for r in wallet.board.query() if not r.mine and r.lock == "hash"]
        target = min(rows, key=lambda r: r.seq)
        print(f"venue      {session.venue.url} (rehearsal, loopback only)", file=out)
        chain = session.chain
        accounts = {}
        if chain is not None:
            accounts = {"you": _evm_address(wallet),
                        "agent": _evm_address(session.counterparty.wallet)}
            print(f"chain      {chain.config.url} (local anvil, chain id "
                  f"{chain.config.chain_id}, test ether), escrow {chain.config.escrow}", file=out)
            if chain.asset.address is not None:
                print(f"token      {chain.asset.symbol} at {chain.asset.address} (a test token "
                      f"of {chain.asset.decimals} decimals, worth nothing)", file=out)
            before = {who: await chain.holdings(a) for who, a in accounts.items()}
            for who, address in accounts.items():
                print(f"balance    {who:<5} {address} before: "
                      f"{await chain.holdings_text(address)}", file=out)
        print(f"you        {wallet.did}", file=out)
        print(f"agent      {target.sender}", file=out)
        print(f"offer      {target.offer_id}: {target.role} {target.amount_text}, "
              f"{target.lock} lock, rails {', '.join(target.rails)}", file=out)
        view = await wallet.accept_offer(target.offer_id)
        deal = wallet.deal(view.deal_id)
        print(f"accepted   contract {deal.state.contract}", file=out)
        await _wait(lambda: deal.state.status == "locked" and deal.lock_check is not None,
                    timeout_s)
        request = deal.request_reveal()
        for fact in request.facts:
            mark = {True: "ok", False: "NO", None: "--"}[fact.ok]
            print(f"  gate     [{mark}] {fact.label}: {fact.detail}", file=out)
        await deal.confirm(request, typed_code=request.confirm_code)
        await _wait(lambda: deal.state.status == "claimed", timeout_s)
        print("transcript", file=out)
        for record in deal.view().records:
            badge = "verified" if record.verified else "UNVERIFIED"
            who = "you" if record.mine else "agent"
            print(f"  {record.room:<28} #{record.seq:<4} {badge:<10} {who:<5} {record.summary}",
                  file=out)
        status = deal.state.status
        if chain is not None:
            for who, address in accounts.items():
                after = await chain.holdings(address)
                print(f"balance    {who:<5} {address} after:  "
                      f"{await chain.holdings_text(address)} "
                      f"({chain.change_text(before[who], after)}; gas is paid in ether)",
                      file=out)
            print(f"escrow     holds {await chain.holdings_text(chain.config.escrow)}",
                  file=out)
        print(f"final      {status}", file=out)
        return status


def _evm_address(wallet: Wallet) -> str:
    """The account a demo wallet's evm-htlc rail pays from (funded by the local chain)."""
    return cast("EvmHtlcRail", wallet.rails["evm-htlc"]).address
