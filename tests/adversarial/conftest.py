"""Adversarial cases: the engine's fixtures (two wallets on one rehearsal venue, one clock)."""

from __future__ import annotations

from tests.engine.conftest import clock, pair  # noqa: F401
