"""An httpx client bound to the `venue` fixture, closed before the venue stops."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from tclk_tui.rehearsal.runner import RunningVenue
from tests.rehearsal.support import http


@pytest.fixture
async def client(venue: RunningVenue) -> AsyncIterator[httpx.AsyncClient]:
    async with http(venue.url) as session:
        yield session
