"""The 0x-hex convention shared by locks, adaptor signatures and arbitration."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.hexutil import HEX32_RE, HEX33_RE, bytes_to_hex, hex_to_bytes, is_hex


def test_empty_hex_is_zero_bytes() -> None:
    assert hex_to_bytes("0x") == b""


def test_either_case_decodes() -> None:
    assert hex_to_bytes("0xAbCd") == b"\xab\xcd"
    assert hex_to_bytes("0xabcd") == b"\xab\xcd"


@pytest.mark.parametrize(
    ("value", "got"),
    [
        ("", "0 chars"),
        ("0x1", "3 chars"),
        ("0X11", "4 chars"),
        ("11", "2 chars"),
        ("0xzz", "4 chars"),
        ("0x11\n", "5 chars"),
        (" 0x11", "5 chars"),
        ("0x١١", "4 chars"),  # Arabic-Indic digits are not hex digits
        ("0x😀😀", "6 chars"),  # counted in UTF-16 code units, as the reference does
    ],
)
def test_malformed_hex_strings_raise_with_a_length(value: str, got: str) -> None:
    with pytest.raises(TclkError) as info:
        hex_to_bytes(value)
    assert str(info.value) == f"tclk: expected 0x-prefixed even-length hex, got {got}"


@pytest.mark.parametrize(
    ("value", "kind"),
    [(17, "number"), (1.5, "number"), (None, "object"), (b"0x11", "object"), (True, "boolean")],
)
def test_non_strings_raise_with_their_type(value: object, kind: str) -> None:
    with pytest.raises(TclkError, match=f"got {kind}$"):
        hex_to_bytes(value)


def test_error_never_echoes_the_value() -> None:
    secret_ish = "0x" + "ab" * 32 + "z"
    with pytest.raises(TclkError) as info:
        hex_to_bytes(secret_ish)
    assert "abab" not in str(info.value)
    assert "abab" not in repr(info.value)


def test_is_hex() -> None:
    assert is_hex("0x")
    assert is_hex("0xAB")
    assert not is_hex("0xA")
    assert not is_hex("")
    assert not is_hex(b"0x")
    assert not is_hex("0x11\n")


def test_bytes_to_hex_is_lowercase_and_prefixed() -> None:
    assert bytes_to_hex(b"") == "0x"
    assert bytes_to_hex(b"\xab\xcd") == "0xabcd"
    assert bytes_to_hex(bytearray(b"\x01")) == "0x01"


def test_wire_regexes_are_lowercase_fixed_length() -> None:
    assert HEX32_RE.fullmatch("0x" + "ab" * 32)
    assert not HEX32_RE.fullmatch("0x" + "AB" * 32)
    assert not HEX32_RE.fullmatch("0x" + "ab" * 31 + "a")
    assert not HEX32_RE.fullmatch("0x" + "ab" * 33)
    assert not HEX32_RE.fullmatch("0x" + "ab" * 32 + "\n")
    assert HEX33_RE.fullmatch("0x02" + "ab" * 32)
    assert not HEX33_RE.fullmatch("0x02" + "AB" * 32)
    assert not HEX33_RE.fullmatch("0x" + "ab" * 32)


@settings(max_examples=200)
@given(st.binary(max_size=80))
def test_round_trip(data: bytes) -> None:
    text = bytes_to_hex(data)
    assert hex_to_bytes(text) == data
    assert hex_to_bytes("0x" + text[2:].upper()) == data
    assert is_hex(text)
