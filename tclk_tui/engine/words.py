"""The operator's words for the protocol's field names, for rails that settle nothing, and
counts with the right plural.

Frames spell their fields for machines (`claimByMs`); an operator reads "claim by". Every face
translates through this one table, so a field is called the same thing on the board, in a gate,
in a refusal and in the CLI. Only whole words are replaced: a raw line or an id that happens to
contain a field name inside a longer word is left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from tclk_tui.protocol.rails import RAIL_MOVES_VALUE

FIELD_WORDS: Final[dict[str, str]] = {
    "claimByMs": "claim by",
    "refundAfterMs": "refund after",
    "expiresMs": "expiry",
    "amount": "amount",
    "asset": "asset",
    "lockType": "lock type",
    "rails": "rails",
    "rail": "rail",
    "railRef": "rail reference",
    "offerId": "offer id",
    "dealId": "deal id",
    "contractId": "contract id",
    "paymentKey": "payment key",
    "payeeKey": "payee key",
    "payerKey": "payer key",
    "statement": "statement",
    "adaptorSig": "adaptor signature",
    "panelRoot": "arbiter panel",
    "arbiters": "arbiters",
    "threshold": "threshold",
    "nonce": "nonce",
    "expires_in_s": "expires in",
    "claim_in_s": "claim in",
    "refund_gap_s": "refund gap",
}

# Only the machine spellings (camelCase or snake_case): plain words stay as they are.
_RAW = sorted((name for name, word in FIELD_WORDS.items() if name != word), key=len,
              reverse=True)
_RAW_NAME = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, _RAW)) + r")(?![\w-])")


def field_word(name: str) -> str:
    """The operator's word for one field name (unknown names are returned as they are)."""
    return FIELD_WORDS.get(name, name)


def plain_words(text: str) -> str:
    """`text` with every raw field name, as a whole word, replaced by the operator's word:
    "reveal before claimByMs" -> "reveal before claim by"."""
    return _RAW_NAME.sub(lambda match: FIELD_WORDS[match.group(1)], text)


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """`1 file`, `0 files`, `3 lines`, `2 replies` (pass the plural when it is not +s)."""
    word = singular if count == 1 else (plural_form or singular + "s")
    return f"{count:,} {word}"


SETTLES_NOTHING: Final = "settles nothing"


def settles_nothing(rail: str) -> bool:
    """True for a rehearsal rail (`paper`, `memory`): a deal on it moves no value at all."""
    return RAIL_MOVES_VALUE.get(rail) is False


def rehearsal_rails() -> tuple[str, ...]:
    return tuple(sorted(rail for rail in RAIL_MOVES_VALUE if settles_nothing(rail)))


def rehearsal_note() -> str:
    """`memory and paper settle nothing (rehearsal rails)`: said wherever a rail is chosen."""
    names = rehearsal_rails()
    verb = "settles" if len(names) == 1 else "settle"
    return f"{' and '.join(names)} {verb} nothing (rehearsal rails)"


def rail_choice(rail: str) -> str:
    """One rail as a choice is labelled: `paper (settles nothing)`."""
    return f"{rail} ({SETTLES_NOTHING})" if settles_nothing(rail) else rail


def rails_phrase(rails: Iterable[str]) -> str:
    """An offer's rails with what settles nothing said: `evm-htlc,paper (paper settles
    nothing)`, `memory,paper (all settle nothing)`."""
    rails = tuple(rails)
    listed = ",".join(rails) or "-"
    idle = [rail for rail in rails if settles_nothing(rail)]
    if not idle:
        return listed
    if len(idle) == len(rails):
        return f"{listed} ({'settles' if len(rails) == 1 else 'all settle'} nothing)"
    return f"{listed} ({' and '.join(idle)} {'settles' if len(idle) == 1 else 'settle'} nothing)"
