"""Offer and contract ids: domain-separated SHA-256 over the ASCII-escaped canonical JSON.

The payload is escaped before hashing so that the preimage is the same bytes the wire carries;
hashing the unescaped UTF-8 gives a different id for any frame with a non-ASCII character. The
one exception the reference keeps is DEL: it is never escaped, so a decoded frame that carried an
escaped `\\u007f` is hashed with a raw DEL byte.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Final

from tclk_tui.protocol.canonical import canonical_json, js_utf8, to_ascii

TCLK_DOMAIN: Final = "FLOP::tclk::v1"
"""The domain every tclk/1 hash is separated by (ids, vote commitments)."""

ACCEPT_CORE_FIELDS: Final = ("from", "ref", "statement", "paymentKey", "nonce")
"""The accept fields the contract id commits to (`type` and `contract` are not among them)."""


def domain_hash(tag: str, payload: str) -> str:
    """`0x` + sha256(UTF-8 of `FLOP::tclk::v1|<tag>|<to_ascii(payload)>`), lowercase hex."""
    preimage = TCLK_DOMAIN + "|" + tag + "|" + to_ascii(payload)
    return "0x" + hashlib.sha256(js_utf8(preimage)).hexdigest()


def offer_id(offer: Mapping[str, Any]) -> str:
    """The id of an offer: every present field except `id`, rails in their exact order."""
    body = {key: value for key, value in offer.items() if key != "id"}
    return domain_hash("offer", canonical_json(body))


def accept_core(accept: Mapping[str, Any]) -> dict[str, Any]:
    """The part of an accept that the contract id binds; an absent paymentKey stays absent."""
    return {key: accept[key] for key in ACCEPT_CORE_FIELDS if key in accept}


def contract_id(offer: Mapping[str, Any], accept_core_or_frame: Mapping[str, Any]) -> str:
    """The contract id of an offer (with its `id`) and an acceptance.

    Accepts either the accept core or a whole accept frame: only the core fields are hashed, so
    a frame's `type` and `contract` never leak into the id.
    """
    core = accept_core(accept_core_or_frame)
    return domain_hash("contract", canonical_json({"offer": offer, "accept": core}))
