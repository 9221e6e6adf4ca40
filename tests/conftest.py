"""Shared fixtures: a rehearsal venue serving on loopback for the duration of one test."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from tclk_tui.rehearsal.runner import RunningVenue, start_venue
from tclk_tui.rehearsal.server import VenueConfig


@pytest.fixture
async def venue() -> AsyncIterator[RunningVenue]:
    """A fresh in-memory venue with the public defaults (rate limits off)."""
    async with start_venue() as running:
        yield running


@pytest.fixture
async def venue_factory() -> AsyncIterator[Callable[..., Awaitable[RunningVenue]]]:
    """`await venue_factory(config=..., data_dir=...)` starts a venue stopped after the test."""
    async with contextlib.AsyncExitStack() as stack:

        async def factory(
            config: VenueConfig | None = None, data_dir: Path | None = None
        ) -> RunningVenue:
            return await stack.enter_async_context(start_venue(config, data_dir))

        yield factory


# A fresh anvil per test and the deployed escrow on it (tests/rails/evm, tests/engine).
from tests.rails.evm.fixtures import anvil, chain  # noqa: E402, F401
