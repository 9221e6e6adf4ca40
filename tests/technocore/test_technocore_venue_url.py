"""A venue URL whose host cannot be a host is refused with the reason, before any request."""

from __future__ import annotations

import pytest

from tclk_tui.technocore.client import check_venue_url


@pytest.mark.parametrize(("url", "says"), [
    ("http://256.256.256.256", "not an IPv4 address"),
    ("http://1.2.3.999:8080", "not an IPv4 address"),
    ("http://10.0.0", "not an IPv4 address"),
    ("http://-venue.example", "not a host name"),
    ("http://venue-.example", "not a host name"),
    ("http://ven..ue.example", "not a host name"),
    ("http://" + "a" * 64 + ".example", "not a host name"),
    ("http://venue.example.123", "not an IPv4 address"),
    ("http://[::g]", "not a valid URL"),
    ("http://[12345::1]", "not a valid URL"),
    ("http://ven%75e.example", "not a host name"),
])
def test_a_host_that_cannot_be_one_is_refused_with_why(url: str, says: str):
    with pytest.raises(ValueError, match=says):
        check_venue_url(url)


@pytest.mark.parametrize("url", [
    "https://technocore.chat", "http://127.0.0.1:8080", "http://[::1]:9000/", "http://localhost",
    "http://venue.example.", "https://my-venue.internal", "http://10.0.0.255"])
def test_hosts_that_are_hosts_pass(url: str):
    assert check_venue_url(url) == url.rstrip("/")
