"""Amounts as money: exact in the asset's units, every digit kept, never two amounts alike."""

from __future__ import annotations

from decimal import Decimal, localcontext

from hypothesis import given
from hypothesis import strategies as st

from tclk_tui.protocol.money import minimal_text, money_text, units_text, whole_amount

AMOUNTS = st.integers(min_value=0, max_value=2**256 - 1)
DECIMALS = st.integers(min_value=0, max_value=36)


@given(AMOUNTS, DECIMALS)
def test_the_units_read_back_to_exactly_the_amount(amount, decimals):
    text = units_text(amount, decimals)
    with localcontext() as exact:
        exact.prec = 200
        assert Decimal(text).scaleb(decimals) == amount
    assert "e" not in text.lower() and not text.endswith(".")
    if "." in text:
        assert not text.endswith("0")


@given(AMOUNTS, AMOUNTS, DECIMALS)
def test_two_different_amounts_never_read_alike(one, other, decimals):
    if one != other:
        assert money_text(str(one), "ETH", decimals) != money_text(str(other), "ETH", decimals)


def test_ether_reads_as_ether_and_wei_beside_it():
    assert money_text("250000000000000000", "ETH", 18) == "0.25 ETH"
    assert money_text(str(10**17), "ETH", 18) == "0.1 ETH"
    assert money_text(str(1000 * 10**18), "ETH", 18) == "1000 ETH"
    assert money_text("1", "ETH", 18) == "0.000000000000000001 ETH"
    assert minimal_text("250000000000000000", "ETH", 18) == "250000000000000000 wei"
    assert money_text("1500000", "USDC", 6) == "1.5 USDC"
    assert minimal_text("1500000", "USDC", 6) == "1500000 units of USDC, 6 decimals"


def test_without_decimals_an_amount_keeps_its_minimal_units_and_names_its_asset():
    assert money_text("1000", "FLOP", None) == "1000 FLOP"
    assert minimal_text("1000", "FLOP", None) == "1000 FLOP (minimal units)"


def test_what_is_not_an_amount_is_shown_as_it_came():
    for bad in ("-1", "01", "1.5", "１", "", "1e3", True, None, "9" * 201):
        assert whole_amount(bad) is None
        assert money_text(bad, "ETH", 18) == f"{bad} ETH"
