"""How strong the passphrase of a new vault file must be, as one rule an operator can follow.

The file vault's only protection against someone who copied the file is its passphrase: argon2id
makes each guess costly, not impossible, so a new vault refuses the short, the one-kind and the
repetitive passphrases a guesser tries first. A plain length-and-variety rule rather than an
estimator: it is stated in one sentence, and that sentence tells the operator what to type.
An existing vault is opened with whatever passphrase made it.
"""

from __future__ import annotations

import unicodedata

MIN_LENGTH = 12
MIN_DISTINCT = 6
MIN_KINDS = 2
LONG_LENGTH = 20  # long enough that one kind of character is fine
RULE = (f"a new vault passphrase needs at least {MIN_LENGTH} characters of at least "
        f"{MIN_KINDS} kinds (lower case, upper case, digits, spaces or symbols), or at least "
        f"{LONG_LENGTH} of any kind, with at least {MIN_DISTINCT} different characters either "
        "way; four unrelated words with spaces between them will do")


def _kind(char: str) -> str:
    if char.isdigit():
        return "digit"
    if char.islower():
        return "lower"
    if char.isupper():
        return "upper"
    return "other"  # spaces, punctuation, symbols, and letters of scripts without case


def passphrase_problem(passphrase: str | bytes) -> str | None:
    """Why `passphrase` may not protect a new vault (the rule, as a sentence), or None.

    The sentence never quotes the passphrase, nor says which part of the rule failed: either
    would put a hint of it on the screen or in a log.
    """
    if isinstance(passphrase, bytes | bytearray):
        text = bytes(passphrase).decode("utf-8", errors="replace")
    else:
        text = passphrase
    text = unicodedata.normalize("NFC", text)
    kinds = {_kind(char) for char in text}
    varied = len(kinds) >= MIN_KINDS or len(text) >= LONG_LENGTH
    if len(text) < MIN_LENGTH or len(set(text)) < MIN_DISTINCT or not varied:
        return RULE
    return None


__all__ = ["LONG_LENGTH", "MIN_DISTINCT", "MIN_KINDS", "MIN_LENGTH", "RULE", "passphrase_problem"]
