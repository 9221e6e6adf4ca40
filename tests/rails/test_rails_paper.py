"""PaperRail: the reference's predicates and messages (digest §11), plus the stricter clock."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.quoting import quote
from tclk_tui.protocol.rails import RAIL_MOVES_VALUE
from tclk_tui.rails import (
    MemoryNoteStore,
    PaperRail,
    PaperRecord,
    SettlementError,
    SettlementRail,
)

from .contract import RailContract, RailHarness, fresh_terms
from .rail_cases import (
    BAD_CLOCK_READINGS,
    CLOCK_MESSAGE,
    CONTRACT,
    HASH,
    LETTERED_HASH,
    LETTERED_PREIMAGE,
    OTHER_CONTRACT,
    PAPER_KEY,
    PAPER_NS,
    PAYEE,
    POINT,
    PREIMAGE,
    WITNESS,
    WRONG_PREIMAGE,
    ManualClock,
    T,
    hash_terms,
    point_terms,
)

LOCKED_LINE = f"tclkpaper1 locked hash {HASH} {T}"


def _rail(now: object = T - 1) -> tuple[PaperRail, MemoryNoteStore, ManualClock]:
    notes = MemoryNoteStore()
    clock = ManualClock(now)
    return PaperRail(notes, clock), notes, clock


async def _locked(now: object = T - 1) -> tuple[PaperRail, MemoryNoteStore, ManualClock]:
    rail, notes, clock = _rail(now)
    assert await rail.lock(hash_terms()) == CONTRACT
    return rail, notes, clock


class BrokenNoteStore:
    """A venue that is down: every call fails the way a transport error does."""

    async def get(self, ns: str, key: str) -> str | None:
        raise ConnectionError("venue unreachable")

    async def set(self, ns, key, value, *, if_value=None, if_absent=False) -> bool:
        raise ConnectionError("venue unreachable")


class RacingNoteStore(MemoryNoteStore):
    """Lets a second writer land between a rail's read and its compare-and-set."""

    def __init__(self) -> None:
        super().__init__()
        self.on_next_get = None

    async def get(self, ns: str, key: str) -> str | None:
        value = await super().get(ns, key)
        hook, self.on_next_get = self.on_next_get, None
        if hook is not None:
            await hook(self)
        return value


class JunkValueStore(MemoryNoteStore):
    """An adapter bug that hands back something other than text."""

    async def get(self, ns: str, key: str):  # type: ignore[override]
        return 12345


# -- identity: impossible to mistake for settlement -------------------------------------------


def test_paper_rail_says_loudly_that_it_settles_nothing():
    rail, _, _ = _rail()
    assert isinstance(rail, SettlementRail)
    assert rail.id == "paper"
    assert rail.moves_value is False
    assert PaperRail.moves_value is False
    assert RAIL_MOVES_VALUE["paper"] is False
    text = rail.describe()
    assert text.startswith("PAPER RAIL - REHEARSAL ONLY.")
    for phrase in ("SETTLES NOTHING", "MOVES NO VALUE", "world-writable", "never of a payment"):
        assert phrase in text
    assert "moves_value=False" in repr(rail)


# -- lock -------------------------------------------------------------------------------------


async def test_lock_writes_the_locked_record_at_the_paper_note():
    rail, notes, _ = _rail()
    assert await rail.lock(hash_terms()) == CONTRACT
    assert notes.raw(PAPER_NS, PAPER_KEY) == LOCKED_LINE
    record = await rail.read(CONTRACT)
    assert record == PaperRecord(status="locked", lock="hash", statement=HASH, refund_after_ms=T)


async def test_lock_stores_neither_amount_asset_nor_parties():
    rail, notes, _ = _rail()
    await rail.lock(hash_terms())
    line = notes.raw(PAPER_NS, PAPER_KEY)
    assert "1000" not in line.split(" ")
    assert "USDC" not in line and "did:key" not in line


async def test_lock_a_point_contract():
    rail, notes, _ = _rail()
    await rail.lock(point_terms())
    assert notes.raw(PAPER_NS, PAPER_KEY) == f"tclkpaper1 locked point {POINT} {T}"


@pytest.mark.parametrize("now", [T, T + 1])
async def test_lock_at_or_after_refund_after_is_refused(now):
    rail, notes, _ = _rail(now)
    with pytest.raises(SettlementError) as info:
        await rail.lock(hash_terms())
    assert str(info.value) == "tclk: refusing to lock into an already-open refund window"
    assert notes.raw(PAPER_NS, PAPER_KEY) is None


@pytest.mark.parametrize("reading", BAD_CLOCK_READINGS)
async def test_lock_with_a_lying_clock_throws(reading):
    # Stricter than the reference, whose paper rail let a NaN clock pass every guard.
    rail, notes, _ = _rail(reading)
    with pytest.raises(SettlementError) as info:
        await rail.lock(hash_terms())
    assert str(info.value) == CLOCK_MESSAGE
    assert info.value.code == "bad-clock"
    assert notes.raw(PAPER_NS, PAPER_KEY) is None


@pytest.mark.parametrize(
    "changes",
    [
        {"statement": "0x" + HASH[2:].upper()},  # uppercase is refused, never rewritten
        {"statement": HASH.replace("0x", "0X")},
        {"statement": POINT},  # a point statement on a hash lock
        {"lock": "point"},  # a hash statement on a point lock
        {"lock": "point", "statement": "0x" + POINT[2:].upper()},
        {"lock": "sha256"},
        {"statement": HASH[:-2]},
        {"statement": HASH + "00"},
        {"statement": "0x" + "02" + "00" * 32, "lock": "point"},  # x = 0 is off the curve
        {"statement": None},
    ],
)
async def test_lock_refuses_a_statement_that_does_not_fit_its_lock(changes):
    rail, notes, _ = _rail()
    with pytest.raises(SettlementError) as info:
        await rail.lock(hash_terms(**changes))
    assert str(info.value) == "tclk: paper rail lock statement does not fit its lock kind"
    assert info.value.code == "bad-terms"
    assert notes.raw(PAPER_NS, PAPER_KEY) is None


@pytest.mark.parametrize(
    "deadline", [1.5, 2**53, 2**53 + 1, float("nan"), float("inf"), True, "10", None]
)
async def test_lock_refuses_a_deadline_that_is_not_a_safe_positive_integer(deadline):
    rail, notes, _ = _rail(0)
    with pytest.raises(SettlementError) as info:
        await rail.lock(hash_terms(refund_after_ms=deadline))
    assert str(info.value) == (
        "tclk: paper rail lock refundAfterMs must be a positive unix-ms integer"
    )
    assert notes.raw(PAPER_NS, PAPER_KEY) is None


@pytest.mark.parametrize("deadline", [0, -1, -(2**60)])
async def test_a_non_positive_deadline_is_already_an_open_refund_window(deadline):
    rail, _, _ = _rail(0)
    with pytest.raises(SettlementError, match="already-open refund window"):
        await rail.lock(hash_terms(refund_after_ms=deadline))


async def test_an_integral_float_deadline_is_written_as_plain_decimal():
    rail, notes, _ = _rail(0)
    await rail.lock(hash_terms(refund_after_ms=float(T)))
    assert notes.raw(PAPER_NS, PAPER_KEY) == LOCKED_LINE
    assert await rail.verify_lock(hash_terms(), CONTRACT) is True


async def test_the_largest_safe_deadline_round_trips():
    rail, notes, _ = _rail(0)
    await rail.lock(hash_terms(refund_after_ms=2**53 - 1))
    assert notes.raw(PAPER_NS, PAPER_KEY).endswith(f" {2**53 - 1}")
    record = await rail.read(CONTRACT)
    assert record is not None and record.refund_after_ms == 2**53 - 1


async def test_lock_check_order_clock_then_statement_then_deadline_then_contract():
    rail, _, _ = _rail(T)
    with pytest.raises(SettlementError, match="already-open refund window"):
        await rail.lock(hash_terms(statement="junk", contract="junk"))
    rail, _, _ = _rail(0)
    with pytest.raises(SettlementError, match="does not fit"):
        await rail.lock(hash_terms(statement="junk", refund_after_ms=1.5, contract="junk"))
    with pytest.raises(SettlementError, match="positive unix-ms integer"):
        await rail.lock(hash_terms(refund_after_ms=1.5, contract="junk"))


@pytest.mark.parametrize("contract", ["0xABC", "0x" + "AB" * 32, "0x" + "ab" * 31, "", None])
async def test_lock_refuses_a_malformed_contract_id(contract):
    rail, _, _ = _rail()
    with pytest.raises(SettlementError) as info:
        await rail.lock(hash_terms(contract=contract))
    assert str(info.value) == f"tclk: malformed contract id: {quote(contract)}"
    assert info.value.code == "malformed-ref"


async def test_second_lock_loses_the_if_absent_write():
    rail, notes, _ = await _locked()
    with pytest.raises(SettlementError) as info:
        await rail.lock(hash_terms())
    assert str(info.value) == f"tclk: paper rail already has a record for {CONTRACT}"
    assert info.value.code == "already-locked"
    assert notes.raw(PAPER_NS, PAPER_KEY) == LOCKED_LINE


async def test_lock_does_not_overwrite_a_strangers_junk():
    rail, notes, _ = _rail()
    await notes.set(PAPER_NS, PAPER_KEY, "hello")
    with pytest.raises(SettlementError, match="already has a record"):
        await rail.lock(hash_terms())
    assert notes.raw(PAPER_NS, PAPER_KEY) == "hello"


# -- verify_lock ------------------------------------------------------------------------------


async def test_verify_lock_true_for_the_matching_locked_record():
    rail, _, _ = await _locked()
    assert await rail.verify_lock(hash_terms(), CONTRACT) is True


async def test_verify_lock_false_when_ref_is_not_the_contract():
    rail, _, _ = await _locked()
    assert await rail.verify_lock(hash_terms(), OTHER_CONTRACT) is False
    assert await rail.verify_lock(hash_terms(contract=OTHER_CONTRACT), CONTRACT) is False
    assert await rail.verify_lock(hash_terms(), None) is False  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "changes",
    [
        {"lock": "point"},
        {"statement": POINT},
        {"statement": "0x" + HASH[2:].upper()},
        {"refund_after_ms": T + 1},
        {"refund_after_ms": T - 1},
        {"refund_after_ms": float("nan")},
        {"refund_after_ms": str(T)},
    ],
)
async def test_verify_lock_compares_lock_statement_and_deadline(changes):
    rail, _, _ = await _locked()
    assert await rail.verify_lock(hash_terms(**changes), CONTRACT) is False


async def test_verify_lock_refuses_a_bool_deadline_against_a_record_of_one():
    rail, _, _ = _rail(0)
    await rail.lock(hash_terms(refund_after_ms=1))
    assert await rail.verify_lock(hash_terms(refund_after_ms=1), CONTRACT) is True
    assert await rail.verify_lock(hash_terms(refund_after_ms=True), CONTRACT) is False


@pytest.mark.parametrize(
    "changes",
    [
        {"amount": "999999"},
        {"asset": "BTC"},
        {"payer": PAYEE},
        {"payee": "did:key:z6Mkother"},
        {"claim_by_ms": 1},
    ],
)
async def test_verify_lock_does_not_store_or_compare_amount_asset_parties(changes):
    # A paper record holds no value, so there is nothing to compare them against.
    rail, _, _ = await _locked()
    assert await rail.verify_lock(hash_terms(**changes), CONTRACT) is True


async def test_verify_lock_false_for_absent_junk_claimed_or_refunded():
    rail, notes, clock = _rail()
    assert await rail.verify_lock(hash_terms(), CONTRACT) is False
    await notes.set(PAPER_NS, PAPER_KEY, LOCKED_LINE + " ")
    assert await rail.verify_lock(hash_terms(), CONTRACT) is False

    rail, _, _ = await _locked()
    await rail.claim(CONTRACT, PREIMAGE)
    assert await rail.verify_lock(hash_terms(), CONTRACT) is False

    rail, _, clock = await _locked()
    clock.now = T
    await rail.refund(CONTRACT)
    assert await rail.verify_lock(hash_terms(), CONTRACT) is False


@pytest.mark.parametrize("contract", ["0xABC", "0x" + "AB" * 32, "nonsense"])
async def test_malformed_ids_read_as_absent(contract):
    rail, _, _ = _rail()
    assert await rail.read(contract) is None
    assert await rail.verify_lock(hash_terms(contract=contract), contract) is False


async def test_a_transport_failure_is_not_a_negative_answer():
    rail = PaperRail(BrokenNoteStore(), ManualClock())
    with pytest.raises(ConnectionError):
        await rail.verify_lock(hash_terms(), CONTRACT)
    with pytest.raises(ConnectionError):
        await rail.read(CONTRACT)
    with pytest.raises(ConnectionError):
        await rail.lock(hash_terms())


async def test_a_non_text_note_value_reads_as_unreadable():
    rail = PaperRail(JunkValueStore(), ManualClock())
    assert await rail.read(CONTRACT) is None
    assert await rail.verify_lock(hash_terms(), CONTRACT) is False
    with pytest.raises(SettlementError, match=r"^tclk: claim on an unreadable paper record "):
        await rail.claim(CONTRACT, PREIMAGE)


# -- claim ------------------------------------------------------------------------------------


async def test_claim_appends_the_secret_and_marks_the_record_claimed():
    rail, notes, _ = await _locked(T - 1)
    await rail.claim(CONTRACT, PREIMAGE)
    assert notes.raw(PAPER_NS, PAPER_KEY) == f"tclkpaper1 claimed hash {HASH} {T} {PREIMAGE}"
    record = await rail.read(CONTRACT)
    assert record is not None
    assert record.status == "claimed" and record.secret == PREIMAGE


@pytest.mark.parametrize(
    "secret",
    [
        "0x" + LETTERED_PREIMAGE[2:].upper(),
        "0X" + LETTERED_PREIMAGE[2:].upper(),
        "0X" + LETTERED_PREIMAGE[2:],
    ],
)
async def test_an_uppercase_secret_is_accepted_and_stored_lowercase(secret):
    rail, notes, _ = _rail()
    await rail.lock(hash_terms(statement=LETTERED_HASH))
    await rail.claim(CONTRACT, secret)
    expected = f"tclkpaper1 claimed hash {LETTERED_HASH} {T} {LETTERED_PREIMAGE}"
    assert notes.raw(PAPER_NS, PAPER_KEY) == expected
    record = await rail.read(CONTRACT)
    assert record is not None and record.secret == LETTERED_PREIMAGE


async def test_claim_a_point_record_with_the_witness():
    rail, notes, _ = _rail()
    await rail.lock(point_terms())
    await rail.claim(CONTRACT, "0x" + WITNESS[2:].upper())
    assert notes.raw(PAPER_NS, PAPER_KEY) == f"tclkpaper1 claimed point {POINT} {T} {WITNESS}"


@pytest.mark.parametrize("ref", ["0xABC", "0x" + "AB" * 32, "", None])
async def test_claim_on_a_malformed_ref_throws(ref):
    rail, _, _ = await _locked()
    with pytest.raises(SettlementError) as info:
        await rail.claim(ref, PREIMAGE)
    assert str(info.value) == f"tclk: malformed contract id: {quote(ref)}"


async def test_claim_on_an_absent_record():
    rail, _, _ = _rail()
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, PREIMAGE)
    assert str(info.value) == f"tclk: claim on an unknown paper record {CONTRACT}"
    assert info.value.code == "unknown-lock"


async def test_claim_on_an_unreadable_record():
    rail, notes, _ = _rail()
    await notes.set(PAPER_NS, PAPER_KEY, "locked")
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, PREIMAGE)
    assert str(info.value) == f"tclk: claim on an unreadable paper record {CONTRACT}"
    assert info.value.code == "unreadable-record"
    assert notes.raw(PAPER_NS, PAPER_KEY) == "locked"


async def test_claim_on_a_claimed_or_refunded_record():
    rail, _, _ = await _locked()
    await rail.claim(CONTRACT, PREIMAGE)
    with pytest.raises(SettlementError, match=r"^tclk: claim on a claimed record$"):
        await rail.claim(CONTRACT, PREIMAGE)

    rail, _, clock = await _locked()
    clock.now = T
    await rail.refund(CONTRACT)
    with pytest.raises(SettlementError, match=r"^tclk: claim on a refunded record$") as info:
        await rail.claim(CONTRACT, PREIMAGE)
    assert info.value.code == "not-locked"


@pytest.mark.parametrize("now", [T, T + 1])
async def test_claim_at_or_after_refund_after_is_refused(now):
    rail, notes, clock = await _locked()
    clock.now = now
    with pytest.raises(SettlementError, match=r"^tclk: claim after refundAfterMs$"):
        await rail.claim(CONTRACT, PREIMAGE)
    assert notes.raw(PAPER_NS, PAPER_KEY) == LOCKED_LINE


async def test_claim_one_step_before_refund_after_is_allowed():
    rail, _, clock = await _locked(0)
    clock.now = T - 1
    await rail.claim(CONTRACT, PREIMAGE)


@pytest.mark.parametrize("reading", BAD_CLOCK_READINGS)
async def test_claim_with_a_lying_clock_throws(reading):
    rail, notes, clock = await _locked()
    clock.now = reading
    with pytest.raises(SettlementError, match=f"^{CLOCK_MESSAGE}$"):
        await rail.claim(CONTRACT, PREIMAGE)
    assert notes.raw(PAPER_NS, PAPER_KEY) == LOCKED_LINE


@pytest.mark.parametrize("secret", [WRONG_PREIMAGE, WITNESS, "", "0x", PREIMAGE + "00", None, 5])
async def test_a_wrong_secret_leaves_the_record_locked(secret):
    rail, notes, _ = await _locked()
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, secret)
    assert str(info.value) == "tclk: secret does not open the statement"
    assert info.value.code == "bad-secret"
    assert notes.raw(PAPER_NS, PAPER_KEY) == LOCKED_LINE


async def test_claim_loses_the_compare_and_set_when_the_record_moves_underneath():
    notes = RacingNoteStore()
    rail = PaperRail(notes, ManualClock(T - 1))
    await rail.lock(hash_terms())

    async def stranger_overwrites(store: MemoryNoteStore) -> None:
        await store.set(PAPER_NS, PAPER_KEY, f"tclkpaper1 refunded hash {HASH} {T}")

    notes.on_next_get = stranger_overwrites
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, PREIMAGE)
    assert str(info.value) == f"tclk: paper record for {CONTRACT} changed under us"
    assert info.value.code == "cas-lost"
    assert notes.raw(PAPER_NS, PAPER_KEY) == f"tclkpaper1 refunded hash {HASH} {T}"


async def test_cas_compares_the_exact_bytes_read_not_the_decoded_record():
    # Rewriting the same line back is still the same bytes: the claim goes through.
    notes = RacingNoteStore()
    rail = PaperRail(notes, ManualClock(T - 1))
    await rail.lock(hash_terms())

    async def same_bytes(store: MemoryNoteStore) -> None:
        await store.set(PAPER_NS, PAPER_KEY, LOCKED_LINE)

    notes.on_next_get = same_bytes
    await rail.claim(CONTRACT, PREIMAGE)
    assert (await rail.read(CONTRACT)).status == "claimed"


async def test_two_workers_claiming_at_once_settle_exactly_once():
    notes = RacingNoteStore()
    rail_a = PaperRail(notes, ManualClock(T - 1))
    rail_b = PaperRail(notes, ManualClock(T - 1))
    await rail_a.lock(hash_terms())

    async def the_other_worker_claims(store: MemoryNoteStore) -> None:
        await rail_b.claim(CONTRACT, PREIMAGE)

    notes.on_next_get = the_other_worker_claims
    with pytest.raises(SettlementError, match="changed under us"):
        await rail_a.claim(CONTRACT, PREIMAGE)
    assert notes.raw(PAPER_NS, PAPER_KEY) == f"tclkpaper1 claimed hash {HASH} {T} {PREIMAGE}"


# -- refund -----------------------------------------------------------------------------------


async def test_refund_exactly_at_refund_after_marks_the_record_refunded():
    rail, notes, clock = await _locked()
    clock.now = T
    await rail.refund(CONTRACT)
    assert notes.raw(PAPER_NS, PAPER_KEY) == f"tclkpaper1 refunded hash {HASH} {T}"


async def test_refund_one_step_early_is_refused():
    rail, notes, clock = await _locked()
    clock.now = T - 1
    with pytest.raises(SettlementError) as info:
        await rail.refund(CONTRACT)
    assert str(info.value) == "tclk: refund before refundAfterMs"
    assert info.value.code == "refund-too-early"
    assert notes.raw(PAPER_NS, PAPER_KEY) == LOCKED_LINE


async def test_refund_on_absent_unreadable_claimed_refunded():
    rail, notes, clock = _rail(T)
    with pytest.raises(
        SettlementError, match=f"^tclk: refund on an unknown paper record {CONTRACT}$"
    ):
        await rail.refund(CONTRACT)
    await notes.set(PAPER_NS, PAPER_KEY, f"tclkpaper1 locked hash {HASH} 1e3")
    with pytest.raises(
        SettlementError, match=f"^tclk: refund on an unreadable paper record {CONTRACT}$"
    ):
        await rail.refund(CONTRACT)

    rail, _, clock = await _locked()
    await rail.claim(CONTRACT, PREIMAGE)
    clock.now = T
    with pytest.raises(SettlementError, match=r"^tclk: refund on a claimed record$"):
        await rail.refund(CONTRACT)

    rail, _, clock = await _locked()
    clock.now = T
    await rail.refund(CONTRACT)
    with pytest.raises(SettlementError, match=r"^tclk: refund on a refunded record$"):
        await rail.refund(CONTRACT)


@pytest.mark.parametrize("reading", BAD_CLOCK_READINGS)
async def test_refund_with_a_lying_clock_throws(reading):
    # The reference's paper rail refunded at any time under a NaN clock.
    rail, notes, clock = await _locked()
    clock.now = reading
    with pytest.raises(SettlementError, match=f"^{CLOCK_MESSAGE}$"):
        await rail.refund(CONTRACT)
    assert notes.raw(PAPER_NS, PAPER_KEY) == LOCKED_LINE


async def test_refund_loses_the_compare_and_set_when_the_record_moves_underneath():
    notes = RacingNoteStore()
    rail = PaperRail(notes, ManualClock(T - 1))
    await rail.lock(hash_terms())
    rail_late = PaperRail(notes, ManualClock(T))

    async def payee_claims_first(store: MemoryNoteStore) -> None:
        await rail.claim(CONTRACT, PREIMAGE)

    notes.on_next_get = payee_claims_first
    with pytest.raises(
        SettlementError, match=f"^tclk: paper record for {CONTRACT} changed under us$"
    ):
        await rail_late.refund(CONTRACT)


@pytest.mark.parametrize("ref", ["0xABC", None])
async def test_refund_on_a_malformed_ref_throws(ref):
    rail, _, _ = _rail(T)
    with pytest.raises(SettlementError, match=f"^tclk: malformed contract id: {quote(ref)}$"):
        await rail.refund(ref)


# -- secrets ----------------------------------------------------------------------------------


async def test_a_claimed_record_keeps_its_secret_out_of_repr_and_errors():
    rail, _, _ = await _locked()
    with pytest.raises(SettlementError) as info:
        await rail.claim(CONTRACT, WRONG_PREIMAGE)
    assert WRONG_PREIMAGE[2:] not in str(info.value)
    await rail.claim(CONTRACT, PREIMAGE)
    record = await rail.read(CONTRACT)
    assert record is not None and record.secret == PREIMAGE
    assert PREIMAGE[2:] not in repr(record)
    assert PREIMAGE[2:] not in repr(rail)


# -- properties -------------------------------------------------------------------------------


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    value=st.one_of(
        st.text(max_size=300),
        st.lists(
            st.sampled_from(
                [
                    "tclkpaper1",
                    "locked",
                    "claimed",
                    "refunded",
                    "hash",
                    "point",
                    HASH,
                    POINT,
                    PREIMAGE,
                    str(T),
                    "0",
                    "1e3",
                    "",
                    " ",
                ]
            ),
            max_size=7,
        ).map(" ".join),
    )
)
async def test_any_note_value_reads_safely_and_never_crashes_a_claim(value):
    notes = MemoryNoteStore()
    await notes.set(PAPER_NS, PAPER_KEY, value)
    rail = PaperRail(notes, ManualClock(T - 1))
    record = await rail.read(CONTRACT)
    assert record is None or isinstance(record, PaperRecord)
    assert isinstance(await rail.verify_lock(hash_terms(), CONTRACT), bool)
    try:
        await rail.claim(CONTRACT, PREIMAGE)
    except SettlementError:
        assert notes.raw(PAPER_NS, PAPER_KEY) == value
    else:
        assert record is not None and record.status == "locked"


@settings(max_examples=150)
@given(
    preimage=st.binary(min_size=32, max_size=32),
    deadline=st.integers(min_value=1, max_value=2**53 - 1),
)
async def test_lock_then_read_round_trips_any_hash_lock(preimage, deadline):
    statement = "0x" + hashlib.sha256(preimage).hexdigest()
    rail = PaperRail(MemoryNoteStore(), ManualClock(deadline - 1))
    terms = hash_terms(statement=statement, refund_after_ms=deadline)
    await rail.lock(terms)
    assert await rail.read(CONTRACT) == PaperRecord(
        status="locked", lock="hash", statement=statement, refund_after_ms=deadline
    )
    assert await rail.verify_lock(terms, CONTRACT) is True
    await rail.claim(CONTRACT, "0x" + preimage.hex().upper())
    claimed = await rail.read(CONTRACT)
    assert claimed is not None and claimed.secret == "0x" + preimage.hex()


# -- junk records -----------------------------------------------------------------------------

OFF_CURVE = "0x02" + "00" * 32
JUNK_LINES = [
    "",
    "locked",
    "tclkpaper1 locked hash",
    f"tclkpaper1 exploded hash {HASH} {T}",
    f"tclkpaper2 locked hash {HASH} {T}",
    f"TCLKPAPER1 locked hash {HASH} {T}",
    f"tclkpaper1 LOCKED hash {HASH} {T}",
    f"tclkpaper1 locked sha256 {HASH} {T}",
    f"tclkpaper1 locked hash 0xnothex {T}",
    f"tclkpaper1 locked hash {HASH} 0",
    f"tclkpaper1 locked hash {HASH} -5",
    f"tclkpaper1 claimed hash {HASH} {T}",  # claimed without its secret
    f"tclkpaper1 locked hash {HASH} {T} {PREIMAGE}",  # locked with a secret
    f"tclkpaper1 refunded hash {HASH} {T} {PREIMAGE}",
    f"tclkpaper1 locked hash 0x{'ab' * 33} {T}",  # 33-byte hash statement
    f"tclkpaper1 locked hash 0x{'a' * 65} {T}",  # 65 hex digits
    f"tclkpaper1 locked hash 0x{HASH[2:].upper()} {T}",
    f"tclkpaper1 locked point 0x{'ab' * 32} {T}",  # 32-byte point statement
    f"tclkpaper1 locked point 0x04{'ab' * 32} {T}",
    f"tclkpaper1 locked point {OFF_CURVE} {T}",
    f"tclkpaper1 locked point {HASH} {T}",
    f"tclkpaper1 claimed hash {HASH} {T} 0x{'AB' * 32}",  # uppercase secret
    f"tclkpaper1 claimed hash {HASH} {T} {PREIMAGE[:-2]}",
    f"tclkpaper1 claimed hash {HASH} {T} {PREIMAGE} extra",
    # the reference's Number() took these; the strict decimal reader does not
    f"tclkpaper1 locked hash {HASH} 1e3",
    f"tclkpaper1 locked hash {HASH} 0x10",
    f"tclkpaper1 locked hash {HASH} +5",
    f"tclkpaper1 locked hash {HASH} 1.0",
    f"tclkpaper1 locked hash {HASH} 00012",
    f"tclkpaper1 locked hash {HASH} {2**53}",
    f"tclkpaper1 locked hash {HASH} ",
    f"tclkpaper1 locked hash {HASH}  {T}",
    f" tclkpaper1 locked hash {HASH} {T}",
    f"tclkpaper1 locked hash {HASH} {T} ",
    f"tclkpaper1 locked hash {HASH} {T}\n",
    f"tclkpaper1\tlocked hash {HASH} {T}",
    f"tclkpaper1 locked hash {HASH} ١٢",  # non-ASCII digits
]


@pytest.mark.parametrize("line", JUNK_LINES)
async def test_junk_records_read_as_null(line):
    rail, notes, _ = _rail()
    await notes.set(PAPER_NS, PAPER_KEY, line)
    assert await rail.read(CONTRACT) is None
    assert await rail.verify_lock(hash_terms(), CONTRACT) is False
    with pytest.raises(SettlementError, match=r"^tclk: claim on an unreadable paper record "):
        await rail.claim(CONTRACT, PREIMAGE)
    assert notes.raw(PAPER_NS, PAPER_KEY) == line


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (LOCKED_LINE, PaperRecord("locked", "hash", HASH, T)),
        (f"tclkpaper1 locked point {POINT} 1", PaperRecord("locked", "point", POINT, 1)),
        (f"tclkpaper1 refunded hash {HASH} {T}", PaperRecord("refunded", "hash", HASH, T)),
        (
            f"tclkpaper1 claimed hash {HASH} {T} {WRONG_PREIMAGE}",  # secret not checked here
            PaperRecord("claimed", "hash", HASH, T, WRONG_PREIMAGE),
        ),
    ],
)
async def test_well_formed_records_read_back(line, expected):
    rail, notes, _ = _rail()
    await notes.set(PAPER_NS, PAPER_KEY, line)
    assert await rail.read(CONTRACT) == expected


async def test_claimed_with_reads_the_secret_of_a_claimed_record_only():
    rail, notes, _clock = _rail(T)
    assert await rail.claimed_with(CONTRACT) is None
    await notes.set(PAPER_NS, PAPER_KEY, f"tclkpaper1 locked hash {HASH} {T + 10}")
    assert await rail.claimed_with(CONTRACT) is None
    await notes.set(PAPER_NS, PAPER_KEY, f"tclkpaper1 claimed hash {HASH} {T + 10} {PREIMAGE}")
    assert await rail.claimed_with(CONTRACT) == PREIMAGE


async def test_lock_status_reads_the_record():
    rail, notes, _clock = _rail(T)
    assert await rail.lock_status(CONTRACT) is None
    await notes.set(PAPER_NS, PAPER_KEY, f"tclkpaper1 refunded hash {HASH} {T + 10}")
    assert await rail.lock_status(CONTRACT) == "refunded"


class TestPaperRailContract(RailContract):
    """The rail contract suite (tests/rails/contract.py) on the paper rail: two rails, as two
    processes would be, on one note store."""

    @pytest.fixture
    def harness(self) -> RailHarness:
        notes, clock = MemoryNoteStore(), ManualClock(T - 600_000)
        payer, payee = PaperRail(notes, clock), PaperRail(notes, clock)

        async def terms(kind: str):
            return fresh_terms(kind, claim_by_ms=T - 300_000, refund_after_ms=T)

        async def past_deadline(terms) -> None:
            clock.now = terms.refund_after_ms

        return RailHarness(payer=payer, payee=payee, terms=terms, past_deadline=past_deadline,
                           unknown_ref=lambda terms: "0x" + "cd" * 32)
