"""The venue's URLs and names: the base URL a profile names, checked before any request, the
percent-encoding of a path segment for the GET lanes, and a room's or note's name.

Their own module because the client, its signed writes and the profile's settings all need
them, and none of that is HTTP.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import quote, urlsplit

from tclk_tui.technocore.identity import is_name

__all__ = ["check_name", "check_venue_url", "encode_segment"]

_BRACKETED_RE = re.compile(r"\[[^\]]*\](:[0-9]*)?")
_LABEL_RE = re.compile(r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?")


def _host_problem(host: str, *, bracketed: bool) -> str:
    """Why `host` (as urlsplit gives it: lower case, brackets off) cannot be a host, or ""."""
    if bracketed:
        try:
            ipaddress.IPv6Address(host.partition("%")[0])
        except ValueError:
            return f"has {host!r} in brackets, which is not an IPv6 address"
        return ""
    name = host[:-1] if host.endswith(".") else host
    labels = name.split(".")
    if labels[-1].isdigit() or all(label.isdigit() for label in labels):
        # A name's last label is never all digits: this is an IPv4 address or nothing.
        try:
            ipaddress.IPv4Address(name)
        except ValueError:
            return (f"has host {host!r}, which is not an IPv4 address (four numbers 0-255 "
                    "with dots between) nor a host name")
        return ""
    if len(name) > 253 or not all(_LABEL_RE.fullmatch(label) for label in labels):
        return (f"has host {host!r}, which is not a host name (dot-separated labels of 1-63 "
                "letters, digits and inner hyphens)")
    return ""


def check_venue_url(url: object) -> str:
    """The venue's base URL without its trailing slash, or ValueError with a sentence.

    Checked before any request, so a typo is one clear refusal instead of an error from deep in
    the HTTP stack: http(s) only, a host that can be one (an IPv4 address of four numbers up to
    255, an IPv6 address in brackets, or a host name), a port in 1..65535, no credentials,
    query or fragment, nothing invisible.
    """
    if not isinstance(url, str) or not url.isascii() or not url.isprintable() or " " in url:
        raise ValueError("the venue URL must be plain text without spaces, e.g. "
                         "https://technocore.chat")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        if "port" in str(exc).lower():
            raise ValueError(f"the venue URL {url!r} has a bad port: use 1-65535") from None
        raise ValueError(f"the venue URL {url!r} is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"the venue URL {url!r} must start with http:// or https://")
    if not parts.hostname:
        raise ValueError(f"the venue URL {url!r} names no host")
    hostport = parts.netloc.rpartition("@")[2]
    if "[" in hostport and not _BRACKETED_RE.fullmatch(hostport):
        raise ValueError(f"the venue URL {url!r} has text after its bracketed address: only "
                         "a port may follow it (:1-65535)")
    problem = _host_problem(parts.hostname, bracketed="[" in parts.netloc)
    if problem:
        raise ValueError(f"the venue URL {url!r} {problem}")
    if port is not None and not 1 <= port <= 65535:
        raise ValueError(f"the venue URL {url!r} has port {port}: use 1-65535")
    if parts.username is not None or parts.password is not None:
        raise ValueError("the venue URL must not carry a user name or password")
    if parts.query or parts.fragment:
        raise ValueError(f"the venue URL {url!r} must not have a query or fragment")
    return url.rstrip("/")


_HEX32_RE = re.compile(r"(?:0x)?([0-9a-fA-F]{64})")


def encode_segment(text: str) -> str:
    """Percent-encode a path segment for the GET lanes (dots too: clients normalise `..`)."""
    return quote(text, safe="").replace(".", "%2E")



def check_name(value: object, what: str) -> None:
    """A room, note namespace or note key the venue can name, or ValueError before any I/O."""
    if not is_name(value):
        raise ValueError(f"not a venue {what} name: {value!r}")
