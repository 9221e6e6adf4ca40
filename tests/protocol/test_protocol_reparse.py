"""reparse_frame: for every line decode_frame accepts, the same frame without the checks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tclk_tui.protocol.codec import decode_frame, encode_frame, reparse_frame
from tclk_tui.protocol.errors import FrameError

from .test_protocol_frames import GOLDEN, golden, valid_frames, with_id


def _same(line: str) -> None:
    expected = decode_frame(line)
    again = reparse_frame(line)
    assert again == expected
    assert [type(value) for value in again.values()] == [type(v) for v in expected.values()]


@given(valid_frames)
def test_every_encoded_frame_reparses_to_what_it_decodes_to(frame: dict[str, Any]) -> None:
    _same(encode_frame(frame))


@pytest.mark.parametrize("kind", sorted(GOLDEN))
def test_every_golden_line_reparses_to_its_frame(kind: str) -> None:
    _same(GOLDEN[kind]["line"])


@given(st.sampled_from(["claimByMs", "refundAfterMs", "expiresMs"]),
       st.sampled_from(["{v}.0", "{v}e0", "{m}e3"]))
def test_integral_float_ms_come_back_as_ints_as_decode_gives_them(field: str,
                                                                   spelling: str) -> None:
    frame = with_id({**golden("offer")})
    value = frame[field]
    assert value % 1000 == 0
    line = encode_frame(frame).replace(f'"{field}":{value}',
                                       f'"{field}":' + spelling.format(v=value, m=value // 1000))
    assert line != encode_frame(frame)
    _same(line)


def test_spaces_and_escapes_that_decode_accepts_reparse_alike() -> None:
    line = GOLDEN["cancel"]["line"].replace('"cancel"', '"\\u0063ancel"')
    _same(line.replace("tclk1 {", "tclk1  {") + " ")


@pytest.mark.parametrize("body", ["{", "[]", '"offer"', "{} {}"])
def test_a_text_that_is_not_a_json_object_is_a_frame_error(body: str) -> None:
    with pytest.raises(FrameError):
        reparse_frame("tclk1 " + body)
