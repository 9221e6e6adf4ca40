from tclk_tui.tui.formatting import (
    capability_hint,
    countdown,
    short_did,
    short_hex,
    utc_hhmm,
    utc_stamp,
    utc_time,
    venue_text,
)
from tests.tui.contract_wallet import NOW_MS


def test_countdown_units_and_boundaries():
    assert countdown(0) == "past"
    assert countdown(-5) == "past"
    assert countdown(999) == "0s"
    assert countdown(59_999) == "59s"
    assert countdown(60_000) == "1m00s"
    assert countdown(3_599_999) == "59m59s"
    assert countdown(3_600_000) == "1h00m"
    assert countdown(86_400_000 - 1) == "23h59m"
    assert countdown(86_400_000) == "1d00h"
    assert countdown(100 * 86_400_000) == "99d+"


def test_countdown_always_fits_its_column():
    for ms in range(0, 200 * 86_400_000, 86_400_000 // 7):
        assert len(countdown(ms)) <= 6


def test_short_did_keeps_head_and_tail():
    assert short_did("did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK") == "z6Mk…2doK"
    assert short_did("") == "-"
    assert short_did("did:key:short") == "short"


def test_short_did_neutralises_controls():
    assert "\x1b" not in short_did("did:key:z6Mk\x1b[31mabcdefghijklmnop")


def test_short_hex():
    assert short_hex("0x" + "ab" * 32, keep=10) == "0xabababab…"
    assert short_hex(None) == "-"


def test_times_are_utc():
    assert utc_time(NOW_MS) == "00:00:00"
    assert utc_hhmm(NOW_MS + 90 * 60_000) == "01:30"
    assert utc_stamp(NOW_MS) == "2026-01-01 00:00:00 UTC"
    assert utc_time(10**20) == "00:00:00"  # out of range never raises


def test_venue_text_words_survive_no_color():
    assert "RECONNECTING" in venue_text("reconnecting").plain
    assert "RATE-LIMITED" in venue_text("rate-limited").plain
    assert "RECORDS MISSED" in venue_text("gap-detected").plain
    assert "polling" in venue_text("polling").plain
    assert "following" in venue_text("following").plain
    detail = venue_text("rate-limited", "[b]wait 3s\x1b").plain
    assert "[b]wait 3s\\x1b" in detail


def test_capability_hint_is_only_a_hint():
    assert capability_hint(None) == "?"
    assert capability_hint(()) == "+"
    assert capability_hint(("memory",)) == "+"
