"""MemoryRail: every predicate and message of the reference rail (digest §11)."""

from __future__ import annotations

import pytest

from tclk_tui.rails import MemoryRail, SettlementError, SettlementRail

from .contract import RailContract, RailHarness, fresh_terms
from .rail_cases import (
    BAD_CLOCK_READINGS,
    CLOCK_MESSAGE,
    CONTRACT,
    HASH,
    LETTERED_HASH,
    LETTERED_PREIMAGE,
    OTHER_CONTRACT,
    PAYEE,
    PAYER,
    POINT,
    PREIMAGE,
    WITNESS,
    WITNESS_ONE,
    WRONG_PREIMAGE,
    ManualClock,
    T,
    hash_terms,
    point_terms,
)


def _rail(now: object = T - 1) -> tuple[MemoryRail, ManualClock]:
    clock = ManualClock(now)
    return MemoryRail(clock=clock), clock


async def _locked(now: object = T - 1) -> tuple[MemoryRail, ManualClock]:
    rail, clock = _rail(now)
    assert await rail.lock(hash_terms()) == CONTRACT
    return rail, clock


# -- identity ---------------------------------------------------------------------------------


def test_memory_rail_is_a_settlement_rail_that_moves_no_value():
    rail, _ = _rail()
    assert isinstance(rail, SettlementRail)
    assert rail.id == "memory"
    assert rail.moves_value is False
    assert "moves no value" in rail.describe().lower()


def test_memory_rail_under_another_registered_id_still_moves_no_value():
    rail = MemoryRail(id="flop-htlc", clock=ManualClock())
    assert rail.id == "flop-htlc"
    assert rail.moves_value is False
    text = rail.describe().lower()
    assert "simulated by the memory rail" in text
    assert "moves no value" in text


@pytest.mark.parametrize("bad", ["bogus", "FLOP-HTLC", "", "paper-rail", None, 7])
def test_memory_rail_refuses_an_id_outside_the_registry(bad):
    with pytest.raises(SettlementError, match=r"^tclk: unknown rail id: ") as info:
        MemoryRail(id=bad, clock=ManualClock())
    assert info.value.code == "unknown-rail"


# -- lock -------------------------------------------------------------------------------------


async def test_lock_returns_the_contract_id_as_ref_and_holds_a_live_lock():
    rail, _ = _rail()
    ref = await rail.lock(hash_terms())
    assert ref == CONTRACT
    assert rail.status(ref) == "locked"
    assert await rail.verify_lock(hash_terms(), ref) is True


async def test_lock_one_step_before_refund_after_is_allowed():
    rail, _ = _rail(T - 1)
    assert await rail.lock(hash_terms()) == CONTRACT


@pytest.mark.parametrize("now", [T, T + 1, T + 10**9])
async def test_lock_at_or_after_refund_after_is_refused(now):
    rail, _ = _rail(now)
    with pytest.raises(SettlementError) as info:
        await rail.lock(hash_terms())
    assert str(info.value) == "tclk: refusing to lock into an already-open refund window"
    assert info.value.code == "refund-window-open"
    assert rail.status(CONTRACT) is None


async def test_second_lock_for_the_same_contract_is_refused():
    rail, _ = await _locked()
    with pytest.raises(SettlementError) as info:
        await rail.lock(hash_terms(amount="2000"))
    assert str(info.value) == f"tclk: rail already holds a lock for {CONTRACT}"
    assert info.value.code == "already-locked"
    # the first lock is untouched
    assert await rail.verify_lock(hash_terms(), CONTRACT) is True


async def test_existing_lock_is_reported_before_the_clock_is_read():
    rail, clock = await _locked()
    clock.now = float("nan")
    with pytest.raises(SettlementError, match=r"^tclk: rail already holds a lock for "):
        await rail.lock(hash_terms())


async def test_lock_even_after_claim_or_refund_is_refused():
    rail, _ = await _locked()
    await rail.claim(CONTRACT, PREIMAGE)
    with pytest.raises(SettlementError, match="already holds a lock"):
        await rail.lock(hash_terms())


@pytest.mark.parametrize("reading", BAD_CLOCK_READINGS)
async def test_lock_with_a_lying_clock_throws(reading):
    rail, _ = _rail(reading)
    with pytest.raises(SettlementError) as info:
        await rail.lock(hash_terms())
    assert str(info.value) == CLOCK_MESSAGE
    assert info.value.code == "bad-clock"
    assert rail.status(CONTRACT) is None


async def test_lock_at_clock_zero_is_a_valid_reading():
    rail, _ = _rail(0)
    assert await rail.lock(hash_terms()) == CONTRACT


@pytest.mark.parametrize("deadline", [float("nan"), float("inf"), True, "1760007200000", None])
async def test_lock_refuses_a_deadline_that_is_not_a_finite_number(deadline):
    # Stricter than the reference, where a NaN deadline lets every guard pass.
    rail, _ = _rail(0)
    with pytest.raises(SettlementError) as info:
        await rail.lock(hash_terms(refund_after_ms=deadline))
    assert str(info.value) == "tclk: rail lock refundAfterMs must be a finite number"
    assert rail.status(CONTRACT) is None


async def test_locks_are_kept_per_contract():
    rail, _ = _rail()
    await rail.lock(hash_terms())
    assert await rail.lock(hash_terms(contract=OTHER_CONTRACT)) == OTHER_CONTRACT
    await rail.claim(CONTRACT, PREIMAGE)
    assert rail.status(CONTRACT) == "claimed"
    assert rail.status(OTHER_CONTRACT) == "locked"


# -- verify_lock ------------------------------------------------------------------------------


async def test_verify_lock_is_false_for_an_unknown_ref():
    rail, _ = await _locked()
    assert await rail.verify_lock(hash_terms(), OTHER_CONTRACT) is False
    assert await rail.verify_lock(hash_terms(), "") is False
    assert await rail.verify_lock(hash_terms(), None) is False  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "changes",
    [
        {"contract": OTHER_CONTRACT},
        {"lock": "point"},
        {"statement": HASH.upper().replace("0X", "0x")},
        {"statement": POINT},
        {"amount": "1001"},
        {"amount": "1000 "},
        {"asset": "USDT"},
        {"payer": PAYEE},
        {"payee": PAYER},
        {"claim_by_ms": T - 3_600_001},
        {"refund_after_ms": T + 1},
        {"refund_after_ms": T - 1},
    ],
)
async def test_verify_lock_compares_all_nine_fields(changes):
    rail, _ = await _locked()
    assert await rail.verify_lock(hash_terms(**changes), CONTRACT) is False


async def test_verify_lock_accepts_equal_terms_built_separately():
    rail, _ = await _locked()
    twin = hash_terms(amount="1" + "000")  # a distinct but equal object
    assert twin is not hash_terms()
    assert await rail.verify_lock(twin, CONTRACT) is True


async def test_verify_lock_fails_closed_on_terms_it_cannot_render():
    rail, _ = await _locked()
    assert await rail.verify_lock(object(), CONTRACT) is False  # type: ignore[arg-type]


async def test_verify_lock_is_false_once_claimed_or_refunded():
    rail, clock = await _locked()
    await rail.claim(CONTRACT, PREIMAGE)
    assert await rail.verify_lock(hash_terms(), CONTRACT) is False

    rail, clock = await _locked()
    clock.now = T
    await rail.refund(CONTRACT)
    assert await rail.verify_lock(hash_terms(), CONTRACT) is False


# -- claim ------------------------------------------------------------------------------------


async def test_claim_with_the_preimage_before_refund_after_settles():
    rail, _ = await _locked(T - 1)
    await rail.claim(CONTRACT, PREIMAGE)
    assert rail.status(CONTRACT) == "claimed"
    assert rail.claimed_secret(CONTRACT) == PREIMAGE


async def test_claim_on_an_unknown_lock_is_refused():
    rail, _ = _rail()
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, PREIMAGE)
    assert str(info.value) == f"tclk: claim on an unknown lock {CONTRACT}"
    assert info.value.code == "unknown-lock"


async def test_claim_on_an_unknown_lock_is_reported_before_the_clock_is_read():
    rail, _ = _rail(float("nan"))
    with pytest.raises(SettlementError, match=r"^tclk: claim on an unknown lock "):
        await rail.claim(CONTRACT, PREIMAGE)


async def test_claim_twice_is_refused():
    rail, _ = await _locked()
    await rail.claim(CONTRACT, PREIMAGE)
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, PREIMAGE)
    assert str(info.value) == "tclk: claim on a claimed lock"
    assert info.value.code == "not-locked"


async def test_claim_after_refund_is_refused():
    rail, clock = await _locked()
    clock.now = T
    await rail.refund(CONTRACT)
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, PREIMAGE)
    assert str(info.value) == "tclk: claim on a refunded lock"


@pytest.mark.parametrize("now", [T, T + 1])
async def test_claim_at_or_after_refund_after_is_refused(now):
    rail, clock = await _locked()
    clock.now = now
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, PREIMAGE)
    assert str(info.value) == "tclk: claim after refundAfterMs"
    assert info.value.code == "claim-too-late"
    assert rail.status(CONTRACT) == "locked"


async def test_the_deadline_is_checked_before_the_secret():
    rail, clock = await _locked()
    clock.now = T
    with pytest.raises(SettlementError, match=r"^tclk: claim after refundAfterMs$"):
        await rail.claim(CONTRACT, WRONG_PREIMAGE)


@pytest.mark.parametrize("reading", BAD_CLOCK_READINGS)
async def test_claim_with_a_lying_clock_throws(reading):
    rail, clock = await _locked()
    clock.now = reading
    with pytest.raises(SettlementError, match=f"^{CLOCK_MESSAGE}$"):
        await rail.claim(CONTRACT, PREIMAGE)
    assert rail.status(CONTRACT) == "locked"


@pytest.mark.parametrize(
    "secret", [WRONG_PREIMAGE, "", "0x", PREIMAGE[:-2], PREIMAGE + "11", "11" * 32, None, 17]
)
async def test_a_wrong_secret_leaves_the_lock_locked(secret):
    rail, _ = await _locked()
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, secret)
    assert str(info.value) == "tclk: secret does not open the statement"
    assert info.value.code == "bad-secret"
    assert rail.status(CONTRACT) == "locked"
    assert await rail.verify_lock(hash_terms(), CONTRACT) is True


async def test_an_uppercase_secret_opens_the_lock_and_is_stored_as_given():
    rail, _ = _rail()
    await rail.lock(hash_terms(statement=LETTERED_HASH))
    upper = "0x" + LETTERED_PREIMAGE[2:].upper()
    await rail.claim(CONTRACT, upper)
    assert rail.claimed_secret(CONTRACT) == upper


async def test_point_lock_is_claimed_with_the_witness():
    rail, _ = _rail()
    await rail.lock(point_terms())
    with pytest.raises(SettlementError, match="does not open"):
        await rail.claim(CONTRACT, WITNESS_ONE)
    with pytest.raises(SettlementError, match="does not open"):
        await rail.claim(CONTRACT, PREIMAGE)  # a hash preimage is not the witness
    await rail.claim(CONTRACT, WITNESS)
    assert rail.status(CONTRACT) == "claimed"


async def test_an_unknown_lock_kind_opens_with_nothing():
    rail, _ = _rail()
    await rail.lock(hash_terms(lock="sha256"))
    with pytest.raises(SettlementError, match="does not open"):
        await rail.claim(CONTRACT, PREIMAGE)


# -- refund -----------------------------------------------------------------------------------


async def test_refund_exactly_at_refund_after_is_allowed():
    rail, clock = await _locked()
    clock.now = T
    await rail.refund(CONTRACT)
    assert rail.status(CONTRACT) == "refunded"


async def test_refund_one_step_before_refund_after_is_refused():
    rail, clock = await _locked()
    clock.now = T - 1
    with pytest.raises(SettlementError) as info:
        await rail.refund(CONTRACT)
    assert str(info.value) == "tclk: refund before refundAfterMs"
    assert info.value.code == "refund-too-early"
    assert rail.status(CONTRACT) == "locked"


async def test_refund_on_an_unknown_lock_is_refused():
    rail, _ = _rail(T)
    with pytest.raises(SettlementError) as info:
        await rail.refund(OTHER_CONTRACT)
    assert str(info.value) == f"tclk: refund on an unknown lock {OTHER_CONTRACT}"


async def test_refund_after_claim_or_twice_is_refused():
    rail, clock = await _locked()
    await rail.claim(CONTRACT, PREIMAGE)
    clock.now = T
    with pytest.raises(SettlementError, match=r"^tclk: refund on a claimed lock$"):
        await rail.refund(CONTRACT)

    rail, clock = await _locked()
    clock.now = T
    await rail.refund(CONTRACT)
    with pytest.raises(SettlementError, match=r"^tclk: refund on a refunded lock$"):
        await rail.refund(CONTRACT)


@pytest.mark.parametrize("reading", BAD_CLOCK_READINGS)
async def test_refund_with_a_lying_clock_throws(reading):
    # NaN would otherwise pass "now < refundAfterMs" as false and refund at any time.
    rail, clock = await _locked()
    clock.now = reading
    with pytest.raises(SettlementError, match=f"^{CLOCK_MESSAGE}$"):
        await rail.refund(CONTRACT)
    assert rail.status(CONTRACT) == "locked"


# -- secrets stay out of sight ----------------------------------------------------------------


async def test_reprs_and_errors_never_show_a_secret():
    rail, _ = await _locked()
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, WRONG_PREIMAGE)
    assert WRONG_PREIMAGE[2:] not in str(info.value)
    await rail.claim(CONTRACT, PREIMAGE)
    shown = repr(rail) + repr(rail._locks)
    assert PREIMAGE[2:] not in shown
    assert "11111111" not in shown
    with pytest.raises(SettlementError) as again:
        await rail.claim(CONTRACT, PREIMAGE)
    assert PREIMAGE[2:] not in str(again.value)


def test_status_and_claimed_secret_of_nothing_are_none():
    rail, _ = _rail()
    assert rail.status(CONTRACT) is None
    assert rail.claimed_secret(CONTRACT) is None
    assert rail.status(None) is None  # type: ignore[arg-type]


async def test_claimed_with_names_the_claiming_secret_only_once_claimed():
    from tclk_tui.protocol.locks import hash_lock_from_preimage
    from tclk_tui.protocol.machine import LockTerms
    from tclk_tui.rails.memory import MemoryRail

    secret = "0x" + "11" * 32
    terms = LockTerms(contract="0x" + "ab" * 32, lock="hash",
                      statement=hash_lock_from_preimage(secret).hash, amount="1", asset="FLOP",
                      payer="did:key:z6Mk" + "f" * 44, payee="did:key:z6Mk" + "g" * 44,
                      claim_by_ms=2_000, refund_after_ms=3_000)
    rail = MemoryRail(clock=lambda: 1_000)
    ref = await rail.lock(terms)
    assert await rail.claimed_with(ref) is None
    await rail.claim(ref, secret)
    assert await rail.claimed_with(ref) == secret
    assert await rail.claimed_with("0x" + "cd" * 32) is None


async def test_lock_status_follows_the_lock():
    from tclk_tui.protocol.locks import hash_lock_from_preimage
    from tclk_tui.protocol.machine import LockTerms
    from tclk_tui.rails.memory import MemoryRail

    terms = LockTerms(contract="0x" + "ab" * 32, lock="hash",
                      statement=hash_lock_from_preimage("0x" + "11" * 32).hash, amount="1",
                      asset="FLOP", payer="did:key:z6Mk" + "f" * 44,
                      payee="did:key:z6Mk" + "g" * 44, claim_by_ms=2_000, refund_after_ms=3_000)
    now = [1_000]
    rail = MemoryRail(clock=lambda: now[0])
    assert await rail.lock_status(terms.contract) is None
    ref = await rail.lock(terms)
    assert await rail.lock_status(ref) == "locked"
    now[0] = 3_000
    await rail.refund(ref)
    assert await rail.lock_status(ref) == "refunded"


class TestMemoryRailContract(RailContract):
    """The rail contract suite (tests/rails/contract.py) on the memory rail."""

    @pytest.fixture
    def harness(self) -> RailHarness:
        clock = ManualClock(T - 600_000)
        rail = MemoryRail(clock=clock)

        async def terms(kind: str):
            return fresh_terms(kind, claim_by_ms=T - 300_000, refund_after_ms=T)

        async def past_deadline(terms) -> None:
            clock.now = terms.refund_after_ms

        return RailHarness(payer=rail, payee=rail, terms=terms, past_deadline=past_deadline,
                           unknown_ref=lambda terms: "0x" + "cd" * 32)
