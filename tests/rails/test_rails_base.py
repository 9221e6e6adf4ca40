"""The rail interface, the clock rule and the moves-value flag."""

from __future__ import annotations

import math

import pytest

from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.rails import RAIL_MOVES_VALUE, RAIL_REGISTRY
from tclk_tui.rails import (
    MemoryNoteStore,
    MemoryRail,
    PaperRail,
    SettlementError,
    SettlementRail,
    rail_now,
    wall_clock_ms,
)
from tclk_tui.rails.base import ascii_lower

from .rail_cases import BAD_CLOCK_READINGS, CLOCK_MESSAGE


@pytest.mark.parametrize("reading", [0, 1, 1_760_000_000_000, 2.5, 2**63])
def test_rail_now_passes_finite_non_negative_readings(reading):
    assert rail_now(lambda: reading) == reading


@pytest.mark.parametrize("reading", BAD_CLOCK_READINGS)
def test_rail_now_refuses_readings_that_would_skip_or_fake_a_guard(reading):
    with pytest.raises(SettlementError) as info:
        rail_now(lambda: reading)
    assert str(info.value) == CLOCK_MESSAGE
    assert info.value.code == "bad-clock"


def test_rail_error_is_a_tclk_error_with_a_code():
    error = SettlementError("tclk: x", code="y")
    assert isinstance(error, TclkError)
    assert isinstance(error, ValueError)
    assert error.code == "y"


def test_wall_clock_reads_whole_milliseconds_since_the_epoch():
    now = wall_clock_ms()
    assert isinstance(now, int)
    assert now > 1_700_000_000_000
    assert math.isfinite(rail_now(wall_clock_ms))


def test_ascii_lower_folds_only_a_to_z():
    assert ascii_lower("0xABCDEF") == "0xabcdef"
    assert ascii_lower("\u212a\u0130") == "\u212a\u0130"  # KELVIN SIGN, dotted I untouched


def test_the_rails_here_never_claim_to_move_value():
    memory = MemoryRail(clock=lambda: 0)
    paper = PaperRail(MemoryNoteStore(), clock=lambda: 0)
    for rail in (memory, paper):
        assert isinstance(rail, SettlementRail)
        assert rail.id in RAIL_REGISTRY
        assert rail.moves_value is False
        assert RAIL_MOVES_VALUE[rail.id] is False
        assert rail.describe()
    for rail_id in RAIL_REGISTRY:
        assert MemoryRail(id=rail_id, clock=lambda: 0).moves_value is False


def test_something_without_the_interface_is_not_a_rail():
    class HalfRail:
        id = "x402"
        moves_value = True

        async def lock(self, terms):
            return "ref"

    assert not isinstance(HalfRail(), SettlementRail)
