"""Rail registry, normalisation, matching, emission rules and capability tokens."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.protocol.codec import encode_frame
from tclk_tui.protocol.errors import FrameError, RailError, TclkError
from tclk_tui.protocol.quoting import quote
from tclk_tui.protocol.rails import (
    CANONICAL_RAIL_RE,
    JS_WHITESPACE,
    LEGACY_RAIL_RE,
    RAIL_ALIASES,
    RAIL_MOVES_VALUE,
    RAIL_REGISTRY,
    ascii_lower,
    capability_token,
    check_emission_rails,
    js_trim,
    matching_rails,
    normalize_rail_id,
    normalize_rail_ids,
    offer_includes_rail,
    parse_capability_token,
    rail_in_offer,
    rail_sets_match,
)

from .test_protocol_frames import golden, with_id


def rail_error(value: Any) -> RailError:
    with pytest.raises(RailError) as caught:
        normalize_rail_id(value)
    return caught.value


def test_registry() -> None:
    assert RAIL_REGISTRY == (
        "btc-htlc",
        "evm-htlc",
        "flop-htlc",
        "memory",
        "near-htlc",
        "paper",
        "x402",
    )
    assert list(RAIL_REGISTRY) == sorted(RAIL_REGISTRY)
    assert all(CANONICAL_RAIL_RE.fullmatch(rail) for rail in RAIL_REGISTRY)
    assert dict(RAIL_ALIASES) == {"paperrail": "paper", "paper-rail": "paper"}
    assert set(RAIL_MOVES_VALUE) == set(RAIL_REGISTRY)
    assert [r for r, moves in RAIL_MOVES_VALUE.items() if not moves] == ["memory", "paper"]
    assert issubclass(RailError, TclkError)


@pytest.mark.parametrize("rail", RAIL_REGISTRY)
def test_canonical_ids_normalise_to_themselves(rail: str) -> None:
    assert normalize_rail_id(rail) == rail


@pytest.mark.parametrize(
    ("value", "canonical"),
    [
        (" FLOP-HTLC ", "flop-htlc"),
        ("PaperRail", "paper"),
        ("paper-rail", "paper"),
        ("paperrail", "paper"),
        ("PAPER-RAIL", "paper"),
        ("X402", "x402"),
        ("\ufeffpaper", "paper"),
        ("paper\n", "paper"),
        ("\u3000paper\u00a0", "paper"),
        ("\u2028paper\u2029", "paper"),
        ("\t\v\fmemory\r", "memory"),
    ],
)
def test_normalize_examples(value: str, canonical: str) -> None:
    assert normalize_rail_id(value) == canonical


@pytest.mark.parametrize(
    "value",
    [
        "Paper_Rail",
        "flop-htlc.",
        "flop_htlc",
        "a--b",
        "-a",
        "a-",
        "\u200bpaper",
        "\x1cpaper",
        "\x85paper",
        "\uff30\uff21\uff30\uff25\uff32",
        "paper rail",
        "\u0130paper",
        "\u212apaper",  # KELVIN SIGN: Python's lower() would make it "k"
    ],
)
def test_malformed_rail_ids(value: str) -> None:
    error = rail_error(value)
    assert error.kind == "malformed"
    assert str(error) == f"tclk: malformed rail id: {quote(value)}"


@pytest.mark.parametrize("value", ["foo", "foo-bar", "custom", " Custom "])
def test_unknown_rail_ids(value: str) -> None:
    error = rail_error(value)
    assert error.kind == "unknown"
    assert str(error) == f"tclk: unknown rail id: {quote(value)}"


@pytest.mark.parametrize("value", [None, 1, ["x402"], "", "   ", "\ufeff", "\u2028"])
def test_empty_or_non_string_rail_ids(value: object) -> None:
    error = rail_error(value)
    assert error.kind == "malformed"
    assert str(error) == "tclk: rail id must be a non-empty string"


def test_js_trim_and_ascii_lower_differ_from_python() -> None:
    assert js_trim("\ufeff x \u3000") == "x"
    assert js_trim("\x1cx\x85") == "\x1cx\x85"  # Python's strip() would remove both
    assert "\ufeff".strip() == "\ufeff"  # and Python's strip() keeps U+FEFF
    assert js_trim("\u200bx") == "\u200bx"
    assert ascii_lower("ABC\u212a\u0130") == "abc\u212a\u0130"
    assert set(JS_WHITESPACE) >= {"\t", "\n", "\v", "\f", "\r", " ", "\u00a0", "\ufeff"}


def test_legacy_grammar() -> None:
    for rail in ("custom.rail", "a", "a" * 64, "PaperRail", "x_y-z.w", "0"):
        assert LEGACY_RAIL_RE.fullmatch(rail)
    for rail in ("", "a" * 65, "Paperrail", ".a", "_a", "-a", "a b", "x402\n"):
        assert not LEGACY_RAIL_RE.fullmatch(rail)


def test_normalize_rail_ids_dedupes_and_sorts() -> None:
    assert normalize_rail_ids(["x402", "PaperRail", "paper", " X402"]) == ["paper", "x402"]
    assert normalize_rail_ids(("memory",)) == ["memory"]


@pytest.mark.parametrize("value", [[], (), "x402", None, {"a": 1}])
def test_normalize_rail_ids_needs_a_non_empty_array(value: object) -> None:
    with pytest.raises(RailError, match=r"^tclk: rails must be a non-empty array$") as caught:
        normalize_rail_ids(value)
    assert caught.value.kind == "malformed"


def test_normalize_rail_ids_first_error_propagates() -> None:
    with pytest.raises(RailError, match="unknown rail id: foo") as caught:
        normalize_rail_ids(["x402", "foo", "Bad_"])
    assert caught.value.kind == "unknown"


def test_matching_rails_is_a_normalised_intersection() -> None:
    assert matching_rails(["flop-htlc", "paper"], ["paper", "x402"]) == ["paper"]
    assert matching_rails(["x402", "PaperRail"], ["paper-rail", "X402"]) == ["paper", "x402"]
    assert matching_rails(["flop-htlc"], ["x402"]) == []
    assert rail_sets_match(["flop-htlc", "paper"], ["paper", "x402"])
    assert rail_sets_match(["paper", "x402"], ["x402", "paper"])
    assert not rail_sets_match(["flop-htlc"], ["x402"])


def test_matching_rails_normalises_supported_first_and_errors_are_not_no_overlap() -> None:
    with pytest.raises(RailError, match="unknown rail id: nope"):
        matching_rails(["bad_"], ["nope"])
    with pytest.raises(RailError, match="malformed rail id: bad_"):
        matching_rails(["bad_"], ["x402"])
    with pytest.raises(RailError):
        rail_sets_match(["custom"], ["x402"])


def test_offer_includes_rail() -> None:
    assert offer_includes_rail(["flop-htlc", "PaperRail"], "paper")
    assert offer_includes_rail(["x402", "custom.rail"], "x402")
    assert not offer_includes_rail(["flop-htlc"], "x402")
    assert not offer_includes_rail([], "x402")
    with pytest.raises(RailError, match=r"malformed rail id: custom\.rail"):
        offer_includes_rail(["custom.rail"], "x402")
    with pytest.raises(RailError, match="unknown rail id: custom"):
        offer_includes_rail(["x402"], "custom")


def test_rail_in_offer_is_the_machine_membership_rule() -> None:
    # exact membership first: legacy custom ids only match exactly
    assert rail_in_offer(["custom.rail"], "custom.rail")
    assert not rail_in_offer(["custom.rail"], "Custom.rail")
    # registered ids match canonically, in both directions
    assert rail_in_offer(["PaperRail"], "paper")
    assert rail_in_offer(["paper"], "PaperRail")
    assert rail_in_offer(["x402"], "X402")
    # a mixed legacy offer does not poison canonical matches
    assert rail_in_offer(["custom.rail", "x402"], "x402")
    assert rail_in_offer(["bad_", "x402"], "X402")
    # never raises
    assert not rail_in_offer(["x402"], "flop-htlc")
    assert not rail_in_offer(["x402"], None)
    assert not rail_in_offer(["x402"], "bad_")
    assert not rail_in_offer(None, "x402")
    assert not rail_in_offer([], "x402")


# --- emission -----------------------------------------------------------------------------


def emission_error(frame: dict[str, Any]) -> str:
    with pytest.raises(FrameError) as caught:
        check_emission_rails(frame)
    with pytest.raises(FrameError, match=re.escape(str(caught.value))):
        encode_frame(frame)
    return str(caught.value)


@pytest.mark.parametrize(
    ("rail", "message"),
    [
        ("PaperRail", "tclk: non-canonical rail id: PaperRail; use paper"),
        ("paper-rail", "tclk: non-canonical rail id: paper-rail; use paper"),
        ("custom.rail", "tclk: malformed rail id: custom.rail"),
        ("custom", "tclk: unknown rail id: custom"),
    ],
)
def test_emission_requires_canonical_rails(rail: str, message: str) -> None:
    offer = with_id({**golden("offer"), "rails": ["x402", rail]})
    assert emission_error(offer) == message
    assert emission_error({**golden("lock"), "rail": rail}) == message
    assert emission_error({**golden("receipt"), "rail": rail}) == message


def test_emission_error_carries_the_rail_error_as_cause() -> None:
    with pytest.raises(FrameError) as caught:
        check_emission_rails({**golden("lock"), "rail": "custom"})
    assert isinstance(caught.value.__cause__, RailError)
    assert caught.value.__cause__.kind == "unknown"


def test_emission_refuses_duplicate_offer_rails_but_not_unsorted_ones() -> None:
    offer = with_id({**golden("offer"), "rails": ["x402", "x402"]})
    assert emission_error(offer) == "tclk: rails must not contain duplicates"
    check_emission_rails(with_id({**golden("offer"), "rails": ["x402", "paper"]}))


def test_emission_rules_skip_frames_without_rails() -> None:
    receipt = golden("receipt")
    del receipt["rail"]
    check_emission_rails(receipt)
    for kind in ("accept", "reveal", "refund", "cancel", "heartbeat"):
        check_emission_rails(golden(kind))


# --- capability tokens ----------------------------------------------------------------------


def test_capability_token() -> None:
    assert capability_token(["x402", "PaperRail"]) == "tclk1:paper,x402"
    assert capability_token(["flop-htlc", "x402", "flop-htlc"]) == "tclk1:flop-htlc,x402"
    with pytest.raises(RailError, match=r"^tclk: capability token needs at least one rail$"):
        capability_token([])
    with pytest.raises(RailError, match=r"^tclk: rails must be a non-empty array$"):
        capability_token("x402")
    with pytest.raises(RailError, match="unknown rail id: custom"):
        capability_token(["custom"])


@pytest.mark.parametrize(
    ("note", "rails"),
    [
        ("tclk1:flop-htlc,x402", ["flop-htlc", "x402"]),
        ("did:key:z6Mk mailbox:mb-p-me tclk1:x402,flop-htlc", ["flop-htlc", "x402"]),
        ("tclk1:flop-htlc x402", ["flop-htlc"]),
        ("tclk1:PaperRail,PAPER", ["paper"]),
        ("a\u3000tclk1:x402", ["x402"]),
        ("tclk1:x402 tclk1:custom", ["x402"]),
        ("", None),
        ("no token here", None),
        ("tclk1:", None),
        ("tclk1:,flop-htlc", None),
        ("tclk1:flop-htlc,,x402", None),
        ("tclk1:flop-htlc,", None),
        ("tclk1:BAD RAIL", None),
        ("tclk1:x402,custom", None),
        ("tclk1:custom tclk1:x402", None),
        ("xtclk1:x402", None),
        ("TCLK1:x402", None),
        (None, None),
        (5, None),
    ],
)
def test_parse_capability_token(note: object, rails: list[str] | None) -> None:
    assert parse_capability_token(note) == rails


@given(st.lists(st.sampled_from(RAIL_REGISTRY), min_size=1))
@settings(max_examples=100)
def test_capability_token_round_trips(rails: list[str]) -> None:
    assert parse_capability_token(capability_token(rails)) == sorted(set(rails))


@given(st.text(max_size=20))
@settings(max_examples=200)
def test_normalize_either_returns_a_registered_id_or_raises_rail_error(value: str) -> None:
    try:
        canonical = normalize_rail_id(value)
    except RailError as error:
        assert error.kind in ("malformed", "unknown")
    else:
        assert canonical in RAIL_REGISTRY
