"""The canonical lines of the common frame types, each read by one regular expression.

Every conforming sender writes a frame as `encode_frame` does: keys sorted, no whitespace, no
escapes in plain values. For the frames a deal repeats (heartbeats above all, then accept, lock,
reveal, refund, cancel, receipt) that text has a fixed grammar, and a line matching it decodes
to exactly the dict the full path (`codec.decode_frame_reference`: prefix, cap, printable-ASCII
guard, JSON parse, `validate_frame`) returns for it, in the same key order. One match replaces
the four steps.

Why the grammar is safe to trust: each value is a JSON string whose alphabet has neither `"`
nor `\\`, so the parser reads it verbatim; each alphabet is printable ASCII; each value's
pattern is the one `validate_frame` applies (free text is any non-empty string there); the keys
are distinct and are exactly the type's required ones plus optional ones it allows. Anything
else (another spelling, an escape, a `presig`, a `paymentKey` outside an offer, a `job`)
is not matched and takes the full path, so every refusal still comes from there. A property
test checks the grammar against the full path on strings generated from the grammar itself.
An offer without a job has a grammar of its own (`read_canonical_offer`), its numbers, its
point and its id checked after the match.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Final

# The field patterns of `frames` (a test holds them equal), spelled out here so that this
# module, the decoder's fast path, imports nothing as it loads.
DID: Final = r"did:key:z6Mk[1-9A-HJ-NP-Za-km-z]{44}"
HEX32: Final = r"0x[0-9a-f]{64}"
STATEMENT: Final = r"0x(?:[0-9a-f]{64}|[0-9a-f]{66})"
NONCE: Final = r"[0-9a-f]{8,64}"
RAIL: Final = r"(?:[a-z0-9][a-z0-9._-]{0,63}|PaperRail)"
OUTCOME: Final = r"claimed|refunded|cancelled"
TEXT: Final = r"[ !#-\[\]-~]+"
"""A non-empty JSON string body needing no escape: printable ASCII but `"` and `\\`."""

AMOUNT: Final = r"[1-9][0-9]*"
ASSET: Final = r"[A-Za-z0-9_-]{1,32}"
HEX33: Final = r"0x[0-9a-f]{66}"

_PREFIX: Final = "tclk1 "
_MAX_CHARS: Final = 4096  # codec.MAX_FRAME_CHARS (a test holds them equal)
_TYPE_KEY: Final = ',"type":"'
_DOMAIN: Final = "FLOP::tclk::v1"  # codec.TCLK_DOMAIN (a test holds them equal)
_MAX_SAFE: Final = 2**53 - 1

# Per type, its keys in sorted order (`type`, last of all of them, aside) with the pattern of
# each value and whether it may be absent.
_FIELDS: Final[dict[str, tuple[tuple[str, str, bool], ...]]] = {
    "accept": (
        ("contract", HEX32, False),
        ("from", DID, False),
        ("nonce", NONCE, False),
        ("ref", HEX32, False),
        ("statement", STATEMENT, False),
    ),
    "lock": (
        ("contract", HEX32, False),
        ("from", DID, False),
        ("rail", RAIL, False),
        ("ref", TEXT, False),
    ),
    "reveal": (
        ("contract", HEX32, False),
        ("from", DID, False),
        ("ref", TEXT, True),
        ("secret", HEX32, False),
    ),
    "refund": (
        ("contract", HEX32, False),
        ("from", DID, False),
        ("reason", TEXT, True),
        ("ref", TEXT, True),
    ),
    "cancel": (
        ("contract", HEX32, False),
        ("from", DID, False),
        ("reason", TEXT, True),
    ),
    "receipt": (
        ("contract", HEX32, False),
        ("from", DID, False),
        ("outcome", OUTCOME, False),
        ("rail", RAIL, True),
        ("ref", TEXT, True),
    ),
    "heartbeat": (
        ("contract", HEX32, False),
        ("from", DID, False),
        ("nonce", NONCE, False),
        ("note", TEXT, True),
    ),
}


@dataclass(frozen=True, slots=True)
class LineGrammar:
    """The whole canonical line of one frame type with one set of its optional keys present;
    `keys` names the pattern's groups in order, `type` (the last key, a group too) included."""

    kind: str
    pattern: re.Pattern[str]
    keys: tuple[str, ...]


def _grammar(kind: str, fields: tuple[tuple[str, str], ...]) -> LineGrammar:
    body = ",".join(f'"{key}":"({value})"' for key, value in fields)
    source = re.escape(_PREFIX + "{") + body + re.escape(_TYPE_KEY) + f'({kind})"\\}}'
    return LineGrammar(kind, re.compile(source), (*(key for key, _ in fields), "type"))


def _grammars(kind: str, fields: tuple[tuple[str, str, bool], ...]) -> tuple[LineGrammar, ...]:
    """One grammar per set of optional keys present, the bare frame first (the usual one): a
    grammar without optional parts reads straight into a dict, with no absent group to drop."""
    optional = [key for key, _value, is_optional in fields if is_optional]
    variants = []
    for count in range(len(optional) + 1):
        for present in combinations(optional, count):
            chosen = tuple(
                (key, value) for key, value, is_optional in fields
                if not is_optional or key in present
            )
            variants.append(_grammar(kind, chosen))
    return tuple(variants)


GRAMMARS: Final[dict[str, tuple[LineGrammar, ...]]] = {
    kind: _grammars(kind, fields) for kind, fields in _FIELDS.items()
}


# A canonical line ends `"type":"<kind>"}`, and the last four letters of the seven kinds differ:
# they pick the grammars to try without searching the line.
_BY_TAIL: Final[dict[str, tuple[LineGrammar, ...]]] = {
    kind[-4:]: variants for kind, variants in GRAMMARS.items()
}
assert len(_BY_TAIL) == len(GRAMMARS)


# The canonical line of an offer without a job: keys in the encoder's order, unix ms as the
# digits JSON writes a positive integer with, every string of an alphabet with neither `"`
# nor `\\`. The id is a hash of the rest, which for such a line is its own text without
# the id's member: the hash is taken of that, not of the frame encoded again.
_MS: Final = r"[1-9][0-9]{0,15}"
_OFFER: Final = re.compile(
    re.escape(_PREFIX + '{"amount":"') + f"({AMOUNT})" + re.escape('","asset":"')
    + f"({ASSET})" + re.escape('","claimByMs":') + f"({_MS})" + re.escape(',"expiresMs":')
    + f"({_MS})" + re.escape(',"from":"') + f"({DID})" + re.escape('","id":"') + f"({HEX32})"
    + re.escape('","lock":"') + "(hash|point)" + re.escape('","nonce":"') + f"({NONCE})"
    + '"(?:' + re.escape(',"paymentKey":"') + f'({HEX33})")?'
    + re.escape(',"rails":[') + f'("(?:{RAIL})"(?:,"(?:{RAIL})")*)'
    + re.escape('],"refundAfterMs":') + f"({_MS})" + re.escape(',"role":"') + "(payer|payee)"
    + re.escape('","type":"offer"}'))


def read_canonical_offer(text: str) -> dict[str, Any] | None:
    """The offer a canonical line without a job holds, checked as `validate_frame` checks
    it, or None (then the full path decodes it, and gives any refusal)."""
    match = _OFFER.fullmatch(text) if len(text) <= _MAX_CHARS else None
    if match is None:
        return None
    (amount, asset, claim, expires, sender, offer_id, lock, nonce, key, rails, refund,
     role) = match.groups()
    claim_ms, expires_ms, refund_ms = int(claim), int(expires), int(refund)
    if max(claim_ms, expires_ms, refund_ms) > _MAX_SAFE or claim_ms >= refund_ms:
        return None
    if (key is None and lock == "point") or (key is not None and not _on_the_curve(key)):
        return None
    member = f',"id":"{offer_id}"'
    at = text.find(member)  # the first: no member before the id's can hold another
    body = text[len(_PREFIX):at] + text[at + len(member):]
    digest = hashlib.sha256(f"{_DOMAIN}|offer|{body}".encode("ascii")).hexdigest()
    if "0x" + digest != offer_id:
        return None
    frame: dict[str, Any] = {"amount": amount, "asset": asset, "claimByMs": claim_ms,
                             "expiresMs": expires_ms, "from": sender, "id": offer_id,
                             "lock": lock, "nonce": nonce}
    if key is not None:
        frame["paymentKey"] = key
    frame["rails"] = [rail[1:-1] for rail in rails.split(",")]
    frame["refundAfterMs"] = refund_ms
    frame["role"] = role
    frame["type"] = "offer"
    return frame


def _on_the_curve(key: str) -> bool:
    """`locks.is_valid_point_statement`, imported when first wanted (see the imports)."""
    from tclk_tui.protocol.locks import is_valid_point_statement

    return is_valid_point_statement(key)


def read_canonical(text: str) -> dict[str, Any] | None:
    """The frame a canonical line of a common type holds, or None (then decode it in full)."""
    tail = text[-6:-2]
    if tail == "ffer":
        return read_canonical_offer(text)
    grammars = _BY_TAIL.get(tail)
    if grammars is None or len(text) > _MAX_CHARS:
        return None
    for grammar in grammars:
        match = grammar.pattern.fullmatch(text)
        if match is not None:
            return dict(zip(grammar.keys, match.groups()))  # noqa: B905 (equal lengths)
    return None


__all__ = ["GRAMMARS", "LineGrammar", "read_canonical", "read_canonical_offer"]
