from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.engine.board.filter import parse_filter
from tclk_tui.engine.views import BoardQuery
from tclk_tui.tui.board_filter import SORT_KEYS, next_sort, sort_by


def test_plain_words_are_text():
    q = parse_filter("hello  world")
    assert q.text == "hello world"
    assert (q.asset, q.rail, q.lock, q.role, q.status) == (None, None, None, None, "open")


def test_known_keys_become_fields():
    q = parse_filter("asset:USDC rail:memory lock:HASH role:Payer status:accepted abc")
    assert q.asset == "USDC" and q.rail == "memory"
    assert q.lock == "hash" and q.role == "payer" and q.status == "accepted"
    assert q.text == "abc"


def test_status_any_shows_every_status():
    assert parse_filter("status:any").status is None
    assert parse_filter("status:*").status is None


def test_did_key_text_is_a_search_not_a_filter():
    q = parse_filter("did:key:z6Mkabc")
    assert q.text == "did:key:z6Mkabc"


def test_empty_value_is_ignored():
    assert parse_filter("asset:").asset is None


def test_sort_is_kept_from_the_base_query():
    base = BoardQuery(sort="amount", descending=True)
    q = parse_filter("asset:BTC", base)
    assert q.sort == "amount" and q.descending


def test_next_sort_cycles_every_column():
    q = BoardQuery()
    seen = []
    for _ in SORT_KEYS:
        seen.append(q.sort)
        q = next_sort(q)
    assert sorted(seen) == sorted(SORT_KEYS)
    assert q.sort == SORT_KEYS[0]


def test_sort_by_same_column_flips_direction():
    q = sort_by(BoardQuery(), "amount")
    assert q.sort == "amount" and not q.descending
    assert sort_by(q, "amount").descending


@settings(max_examples=200)
@given(st.text())
def test_parse_never_raises_and_keeps_sort(value):
    base = BoardQuery(sort="asset", descending=True)
    q = parse_filter(value, base)
    assert q.sort == "asset" and q.descending
    assert q.status in (None, "open") or q.status == q.status.lower()
