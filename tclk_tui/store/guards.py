"""Checks that keep secret material out of the journal.

The journal cannot recognise a secret by its bytes (a preimage and a contract id are both 32
random-looking bytes), so the guards work on structure: objects that carry secrets (anything with
a `reveal()` method, like the vault's SecretValue) are refused wherever a value is written; deal
terms may not contain a key that names a secret; and an outbox `reveal` frame must carry
SECRET_PLACEHOLDER instead of its secret, plus a `secret_ref` naming the vault entry the engine
substitutes at post time. Lines received from the venue are stored verbatim: a secret in one of
those has already been published.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from tclk_tui.protocol.jsondepth import too_deep
from tclk_tui.store.errors import SecretRefused, StoreError

SECRET_PLACEHOLDER = "{{vault-secret}}"  # noqa: S105 - a marker, deliberately not hex
FRAME_PREFIX = "tclk1 "

_SECRET_KEYS = frozenset(
    {
        "secret",
        "preimage",
        "witness",
        "seed",
        "masterseed",
        "privatekey",
        "paymentprivatekey",
        "passphrase",
        "password",
        "mnemonic",
    }
)


def _fold(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()


def refuse_secret_object(value: object, where: str) -> None:
    if callable(getattr(value, "reveal", None)):
        raise SecretRefused(f"a secret-holding {type(value).__name__} cannot be written to {where}")


def terms_to_json(terms: Mapping[str, Any]) -> str:
    """Canonical JSON for deal terms, refusing secret-named keys and non-JSON values."""
    if not isinstance(terms, Mapping):
        raise StoreError(f"deal terms are a mapping, not {type(terms).__name__}")
    _walk(terms, "deal terms")

    def _default(obj: object) -> Any:
        refuse_secret_object(obj, "deal terms")
        raise StoreError(f"deal terms hold a {type(obj).__name__}, which is not JSON data")

    try:
        return json.dumps(
            terms, sort_keys=True, separators=(",", ":"), allow_nan=False, default=_default
        )
    except ValueError as exc:
        if isinstance(exc, StoreError):
            raise
        raise StoreError("deal terms hold a non-finite number") from None


def _walk(value: object, where: str) -> None:
    refuse_secret_object(value, where)
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise StoreError(f"{where} keys are strings, found a {type(key).__name__}")
            if _fold(key) in _SECRET_KEYS:
                raise SecretRefused(f"{where} may not hold a field named {key!r}")
            _walk(item, where)
    elif isinstance(value, list | tuple):
        for item in value:
            _walk(item, where)
    elif isinstance(value, float) and not math.isfinite(value):
        raise StoreError(f"{where} hold a non-finite number")


def check_outbox_text(text: str, secret_ref: str | None) -> None:
    """Refuse a `reveal` frame that carries its secret instead of the placeholder."""
    refuse_secret_object(text, "the outbox")
    if not isinstance(text, str):
        raise StoreError(f"outbox text is a string, not {type(text).__name__}")
    if SECRET_PLACEHOLDER in text and not secret_ref:
        raise StoreError("an outbox frame with the secret placeholder needs a secret_ref")
    if not text.startswith(FRAME_PREFIX):
        return
    try:
        if too_deep(text):
            raise RecursionError
        frame = json.loads(text[len(FRAME_PREFIX) :])
    except (json.JSONDecodeError, RecursionError):
        return
    if not isinstance(frame, dict):
        return
    if "secret" in frame and frame["secret"] != SECRET_PLACEHOLDER:
        raise SecretRefused(
            "an outbox frame carries a secret; journal it with SECRET_PLACEHOLDER and a "
            "secret_ref naming the vault entry, and substitute at post time"
        )


def clean_error(error: str | None, limit: int = 500) -> str | None:
    """Bound an error text and strip control characters before it is journaled and shown."""
    if error is None:
        return None
    text = "".join(ch if ch.isprintable() else " " for ch in str(error))
    return text[:limit]
