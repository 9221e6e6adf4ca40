import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tclk_tui.technocore.client import VenueClient, encode_segment
from tclk_tui.technocore.retry import RetryPolicy


@settings(max_examples=200, deadline=None)
@given(attempt=st.integers(0, 100), base=st.floats(0, 5), cap=st.floats(0, 60),
       jitter=st.floats(0, 1), draw=st.floats(0, 1, exclude_max=True))
def test_backoff_stays_within_the_jitter_band_and_the_cap(attempt, base, cap, jitter, draw):
    policy = RetryPolicy(base_delay_s=base, max_delay_s=cap, jitter=jitter, random=lambda: draw)
    nominal = min(cap, base * 2 ** min(attempt, 32))
    delay = policy.backoff(attempt)
    assert nominal * (1 - jitter) - 1e-9 <= delay <= nominal + 1e-9


def test_backoff_doubles_without_jitter():
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=3.0, jitter=0.0)
    assert [policy.backoff(n) for n in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]


@pytest.mark.parametrize("kwargs", [{"attempts": 0}, {"jitter": 1.5}, {"base_delay_s": -1},
                                    {"rate_limit_budget_s": -1}])
def test_nonsense_policies_are_refused(kwargs):
    with pytest.raises(ValueError):
        RetryPolicy(**kwargs)


@pytest.mark.parametrize(
    ("text", "encoded"),
    [("a b", "a%20b"), ("..", "%2E%2E"), ("a/b", "a%2Fb"), ("q?x#y", "q%3Fx%23y"),
     ("1+1", "1%2B1"), ("100%", "100%25"), ("é", "%C3%A9"), ("~_-", "~_-")],
)
def test_get_lane_segments_are_fully_encoded(text, encoded):
    assert encode_segment(text) == encoded


def test_base_url_must_be_http():
    with pytest.raises(ValueError):
        VenueClient("ftp://venue.example")
