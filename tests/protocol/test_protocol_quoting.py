"""Reasons never quote an untrusted value raw: escaped to printable ASCII and bounded."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tclk_tui.protocol.codec import decode_frame
from tclk_tui.protocol.errors import TclkError
from tclk_tui.protocol.machine import apply_frame
from tclk_tui.protocol.quoting import QUOTE_LIMIT, quote
from tclk_tui.protocol.rails import normalize_rail_id

OSC52 = "\x1b]52;c;aGVsbG8=\x07\x1b]0;pwned\x07"
REASON_BOUND = 400  # our own words plus one quoted value


def _reason(text: str) -> str:
    try:
        decode_frame(text)
    except TclkError as exc:
        return str(exc)
    raise AssertionError("decoded")


def _inert(reason: str) -> bool:
    return reason.isascii() and reason.isprintable() and len(reason) <= REASON_BOUND


def _line(frame: dict) -> str:
    return "tclk1 " + json.dumps(frame, ensure_ascii=True)


def test_an_osc52_in_a_signed_lines_json_string_is_quoted_escaped():
    reason = _reason(_line({"type": "cancel", "from": OSC52, "contract": "0x" + "ab" * 32}))
    assert _inert(reason)
    assert '"\\x1b]52;c;aGVsbG8=\\x07' in reason


def test_an_unknown_key_a_type_and_a_rail_are_quoted_escaped_and_cut():
    for frame in ({"type": OSC52 * 50}, {"type": "cancel", OSC52 * 50: 1},
                  {"type": ["lock\x1b[2J"]}):
        assert _inert(_reason(_line(frame)))
    try:
        normalize_rail_id(OSC52 * 100)
    except TclkError as exc:
        assert _inert(str(exc)) and str(exc).endswith("...")


def test_ordinary_values_keep_the_references_wording():
    assert quote("custom") == "custom"
    assert quote(1) == "1" and quote(None) == "null"
    assert quote({}) == "[object Object]"
    assert quote("a b") == '"a b"' and quote("") == '""'
    assert quote("x" * (QUOTE_LIMIT + 1)) == '"' + "x" * QUOTE_LIMIT + '"...'


@given(st.text(max_size=600))
def test_any_string_quotes_inert_and_bounded(text):
    shown = quote(text)
    assert shown.isascii() and shown.isprintable()
    assert len(shown) <= QUOTE_LIMIT * 10 + 5


@given(st.dictionaries(st.text(max_size=50), st.text(max_size=50), max_size=4),
       st.text(max_size=80))
def test_any_hostile_frame_yields_an_inert_reason(extra, kind):
    assert _inert(_reason(_line({"type": kind, **extra})))
    assert _inert(_reason(_line({"type": "cancel", "from": kind, "ref": kind, **extra})))


def test_state_machine_reasons_quote_the_rail_inert():
    from tests.protocol.test_protocol_machine import PAYER, T0, accepted_state

    state, _accept = accepted_state()
    lock = {"type": "lock", "from": PAYER, "contract": state.contract,
            "rail": "x402\x1b]52;c;aA==\x07", "ref": "r"}
    step = apply_frame(state, lock, T0)
    assert not step.ok and _inert(step.reason)
