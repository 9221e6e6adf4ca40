"""The rail contract suite: what every settlement rail must do, run against each rail.

keyring's habit: one base class of tests, and each rail's own test module subclasses it with
a `harness` fixture that says how to make that rail's locks (memory and paper here, evm-htlc on
anvil in ether and in a token in tests/rails/evm). A new rail is done when a subclass for it
passes. The cases are the interface's promises (tclk/1 SPEC §5 and `tclk_tui.rails.base`):
every declared feature answers with its declared type, a lock verifies only under its own
terms, a claim needs a secret that opens the statement and lands strictly before the deadline,
a refund only at or after it, each lock settles once, and the rail can say what it holds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from tclk_tui.protocol.locks import generate_hash_lock, generate_point_lock
from tclk_tui.protocol.rails import RAIL_REGISTRY
from tclk_tui.rails.base import LockQuote, LockReport, LockTerms, SettlementError, SettlementRail

__all__ = ["RailContract", "RailHarness", "fresh_terms"]


def fresh_terms(kind: str, *, claim_by_ms: int, refund_after_ms: int, amount: str = "1000",
                asset: str = "FLOP") -> tuple[LockTerms, str]:
    """Terms of a new contract with a fresh lock of `kind`, and the secret that opens it."""
    if kind == "hash":
        hash_lock = generate_hash_lock()
        statement, secret = hash_lock.hash, hash_lock.preimage
    else:
        point_lock = generate_point_lock()
        statement, secret = point_lock.statement, point_lock.witness
    contract = "0x" + hashlib.sha256(secrets.token_bytes(16)).hexdigest()
    return LockTerms(contract=contract, lock=kind, statement=statement, amount=amount,
                     asset=asset, payer="did:key:zpayer", payee="did:key:zpayee",
                     claim_by_ms=claim_by_ms, refund_after_ms=refund_after_ms), secret


@dataclass
class RailHarness:
    """How one rail's contract tests make and age its locks.

    `payer` locks and refunds, `payee` verifies and claims (the same object for a rail that
    lives in one process). `terms(kind)` returns fresh terms valid now and the secret that opens
    them; `past_deadline(terms)` moves the rail's clock to at least `refundAfterMs`;
    `unknown_ref` is a well-formed ref of a lock that was never made.
    """

    payer: SettlementRail
    payee: SettlementRail
    terms: Callable[[str], Awaitable[tuple[LockTerms, str]]]
    past_deadline: Callable[[LockTerms], Awaitable[None]]
    unknown_ref: Callable[[LockTerms], str]
    payee_key: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def kw(self) -> dict[str, Any]:
        return {"payee_key": self.payee_key}


class RailContract:
    """Subclass with a `harness` fixture; pytest runs every case below against that rail."""

    @pytest.fixture
    def harness(self) -> RailHarness:
        raise NotImplementedError

    async def test_it_is_a_rail_and_answers_every_declared_feature(self, harness):
        for rail in (harness.payer, harness.payee):
            assert isinstance(rail, SettlementRail)
            assert rail.id in RAIL_REGISTRY and rail.describe()
            assert isinstance(rail.moves_value, bool)
            assert isinstance(rail.process_local, bool)
            assert isinstance(rail.requires_payment_key, bool)
            assert isinstance(rail.settles_by_signature, bool)
            note = rail.window_note()
            assert note is None or (isinstance(note, str) and note)
            assert isinstance(rail.account_text(), str)
            assert isinstance(await rail.reconcile(), list)
            await rail.refresh_account()
            terms, _secret = await harness.terms("hash")
            decimals = rail.asset_decimals(terms.asset)
            assert decimals is None or (isinstance(decimals, int) and decimals >= 0)
            assert rail.asset_refusal(terms.asset) is None  # it settles the harness's asset
            quote = await rail.lock_quote(terms, **harness.kw)
            assert quote is None or isinstance(quote, LockQuote)
            if rail.moves_value:
                assert isinstance(quote, LockQuote) and quote.facts

    @pytest.mark.parametrize("kind", ["hash", "point"])
    async def test_a_lock_verifies_under_its_own_terms_only(self, harness, kind):
        terms, _secret = await harness.terms(kind)
        ref = await harness.payer.lock(terms, **harness.kw)
        assert isinstance(ref, str) and ref
        assert await harness.payee.verify_lock(terms, ref, **harness.kw) is True
        report = await harness.payee.inspect_lock(terms, ref, **harness.kw)
        assert isinstance(report, LockReport) and report.ok and report.rule == "ok"
        assert await harness.payee.lock_status(ref) == "locked"
        other, _ = await harness.terms(kind)
        changed = dataclasses.replace(terms, statement=other.statement)
        assert await harness.payee.verify_lock(changed, ref, **harness.kw) is False
        refused = await harness.payee.inspect_lock(changed, ref, **harness.kw)
        assert not refused.ok and refused.rule != "ok" and refused.detail

    async def test_a_lock_never_made_is_not_verified_and_has_no_status(self, harness):
        terms, _secret = await harness.terms("hash")
        ref = harness.unknown_ref(terms)
        assert await harness.payee.verify_lock(terms, ref, **harness.kw) is False
        assert await harness.payee.lock_status(ref) is None
        assert await harness.payee.claimed_with(ref) is None

    @pytest.mark.parametrize("kind", ["hash", "point"])
    async def test_a_claim_needs_the_secret_and_settles_once(self, harness, kind):
        terms, secret = await harness.terms(kind)
        _other, wrong_secret = await harness.terms(kind)
        ref = await harness.payer.lock(terms, **harness.kw)
        with pytest.raises(SettlementError) as refused:
            await harness.payee.claim(ref, wrong_secret)
        assert refused.value.code == "bad-secret"
        assert await harness.payee.lock_status(ref) == "locked"
        await harness.payee.claim(ref, secret)
        assert await harness.payer.lock_status(ref) == "claimed"
        assert (await harness.payer.claimed_with(ref) or "").lower() == secret.lower()
        assert await harness.payee.verify_lock(terms, ref, **harness.kw) is False
        with pytest.raises(SettlementError):
            await harness.payer.refund(ref)
        with contextlib.suppress(SettlementError):  # refused, or done already: never twice
            await harness.payee.claim(ref, secret)
        assert await harness.payer.lock_status(ref) == "claimed"

    async def test_a_refund_waits_for_the_deadline_and_then_a_claim_is_too_late(self, harness):
        terms, secret = await harness.terms("hash")
        ref = await harness.payer.lock(terms, **harness.kw)
        with pytest.raises(SettlementError) as early:
            await harness.payer.refund(ref)
        assert early.value.code == "refund-too-early"
        await harness.past_deadline(terms)
        with pytest.raises(SettlementError) as late:
            await harness.payee.claim(ref, secret)
        assert late.value.code == "claim-too-late"
        await harness.payer.refund(ref)
        assert await harness.payee.lock_status(ref) == "refunded"
        assert await harness.payee.claimed_with(ref) is None
        with contextlib.suppress(SettlementError):  # refused, or done already: never twice
            await harness.payer.refund(ref)
        assert await harness.payee.lock_status(ref) == "refunded"
