"""Checks on the values a store writes: type, length and range, before any SQL runs.

A value of the wrong type is refused by name (and an object that carries a secret is refused
as such, see `guards`), so a store's SQL only ever sees a str, an int in SQLite's range, or
bytes of a bounded length.
"""

from __future__ import annotations

from tclk_tui.store.errors import StoreError
from tclk_tui.store.guards import refuse_secret_object


def checked_text(value: object, what: str, *, max_len: int = 4096, empty: bool = False) -> str:
    if type(value) is not str:  # a plain str has no `reveal`: the check is for everything else
        refuse_secret_object(value, what)
        if not isinstance(value, str):
            raise StoreError(f"{what} must be a string, not {type(value).__name__}")
    if not empty and not value:
        raise StoreError(f"{what} must not be empty")
    if len(value) > max_len:
        raise StoreError(f"{what} is longer than {max_len} characters")
    return value


def checked_blob(value: object, what: str, *, max_len: int) -> bytes:
    if type(value) is not bytes:
        raise StoreError(f"{what} must be bytes, not {type(value).__name__}")
    if len(value) > max_len:
        raise StoreError(f"{what} is longer than {max_len} bytes")
    return value


def checked_int(value: object, what: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise StoreError(f"{what} must be an integer, not {type(value).__name__}")
    if value < minimum or value > 2**63 - 1:
        raise StoreError(f"{what} is out of range")
    return value


__all__ = ["checked_blob", "checked_int", "checked_text"]
