"""Shared fixtures: a rehearsal venue serving on loopback for the duration of one test."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tclk_tui.rehearsal.runner import RunningVenue, start_venue
from tclk_tui.rehearsal.server import VenueConfig

# Property tests judge behaviour, never speed: a case that takes long on a loaded machine (an
# argon2 vault open, a pilot) is not a failure, so hypothesis' per-case deadline is off.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")


# A venue whose rate limits are off enforces none, but publishes the public numbers in /config,
# and every wallet paces itself to what /config says: a test that is not about the budgets would
# then wait out a write token every few seconds. Such a venue publishes rates it will never
# refuse instead (the wallet adopts them, as it would a deployment's own); a test about the
# budgets turns the limits on, or is marked `published_rates` to read the public numbers.
UNPACED = {"rate_read": 1_000_000, "rate_write": 1_000_000, "rate_rooms_per_day": 1_000_000}


@pytest.fixture(autouse=True, scope="session")
def unpaced_venues() -> Iterator[Callable[[VenueConfig], dict]]:
    """For the whole session, so a venue a module-scoped fixture starts is unpaced too."""
    real = VenueConfig.settings

    def settings(self: VenueConfig) -> dict:
        published = real(self)
        return published if self.rate_limits else {**published, **UNPACED}

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(VenueConfig, "settings", settings)
        yield real


@pytest.fixture(autouse=True)
def published_rates(request, unpaced_venues, monkeypatch) -> None:
    if request.node.get_closest_marker("published_rates") is not None:
        monkeypatch.setattr(VenueConfig, "settings", unpaced_venues)


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


@pytest.fixture(autouse=True)
def read_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilots read a dialog the instant it opens: only keys typed before it opened are dropped
    (tests/tui/test_tui_typing.py checks the reaction time itself). Every pilot that confirms a
    dialog needs it (tests/tui, tests/agents, tests/daemon), so it lives here."""
    from tclk_tui.tui.deliberate import DeliberateKeys

    monkeypatch.setattr(DeliberateKeys, "REACTION_S", 0.0)


@pytest.fixture(autouse=True)
def own_config_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The operator's keymap.toml and themes/ never leak into a test: each test gets an empty
    config folder of its own (child processes inherit it), and tests that need a keymap or a
    user theme write one there."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))


# A fresh anvil per test (or one per module) and the deployed escrow on it (tests/rails/evm,
# tests/engine).
from tests.rails.evm.fixtures import anvil, chain, module_anvil, shared_chain  # noqa: E402, F401
