"""Types that hold secret bytes and refuse to show them by accident.

`repr`, `str`, f-strings, `%` formatting, logging, pickling and JSON all see a redacted
placeholder or fail; the only ways out are the explicit `.reveal()` and `.hex()` calls, which
make every disclosure greppable in the code that does it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any, NoReturn, Self

SEED_LEN = 32


class SecretValue:
    """Secret bytes with a redacting repr; compare in constant time; never hashed or pickled."""

    __slots__ = ("_value",)
    _value: bytes

    def __init__(self, value: bytes | bytearray | memoryview) -> None:
        if not isinstance(value, bytes | bytearray | memoryview):
            raise TypeError(f"{type(self).__name__} holds bytes, not {type(value).__name__}")
        object.__setattr__(self, "_value", bytes(value))

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(<redacted {len(self._value)} bytes>)"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return repr(self)

    def __len__(self) -> int:
        return len(self._value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SecretValue):
            return hmac.compare_digest(self._value, other._value)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        raise TypeError(f"{type(self).__name__} refuses to be pickled")

    def __copy__(self) -> Self:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self

    def reveal(self) -> bytes:
        """The raw bytes. Every call site is a place a secret leaves its wrapper."""
        return self._value

    def hex(self) -> str:
        """Lowercase hex of the secret: an explicit reveal, as for `reveal()`."""
        return self._value.hex()


class MasterSeed(SecretValue):
    """The 32-byte root every deal secret of a profile is derived from."""

    __slots__ = ()

    def __init__(self, value: bytes | bytearray | memoryview) -> None:
        super().__init__(value)
        if len(self._value) != SEED_LEN:
            raise ValueError(f"a master seed is {SEED_LEN} bytes, got {len(self._value)}")

    @classmethod
    def generate(cls) -> MasterSeed:
        return cls(secrets.token_bytes(SEED_LEN))

    def fingerprint(self) -> str:
        """A short public name for this seed, so an operator can check a restore took.

        32 bits of a domain-separated keyed hash: enough to tell seeds apart by eye, far too few
        to help anyone guess the seed.
        """
        tag = hashlib.blake2b(
            b"tclk-tui/v1/seed-fingerprint", key=self._value, digest_size=4
        ).hexdigest()
        return f"{tag[:4]}-{tag[4:]}"
