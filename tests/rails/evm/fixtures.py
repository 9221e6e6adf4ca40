"""Real anvil nodes for the evm-htlc tests: one fresh node per test on a free loopback port,
or (`shared_chain`) one node per test module with a fresh escrow and fresh accounts per test,
for tests whose state is theirs alone that way.

Shared with the engine tests through tests/conftest.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tclk_tui.rails.evm.anvil import AnvilNode, start_anvil
from tests.rails.evm.chain import Chain


@pytest.fixture
def anvil() -> Iterator[AnvilNode]:
    with start_anvil() as node:
        yield node


@pytest.fixture
async def chain(anvil: AnvilNode, tmp_path: Path) -> AsyncIterator[Chain]:
    async with Chain.open(anvil, tmp_path) as opened:
        yield opened


@pytest.fixture(scope="module")
def module_anvil() -> Iterator[AnvilNode]:
    with start_anvil() as node:
        yield node


@pytest.fixture
async def shared_chain(module_anvil: AnvilNode, tmp_path: Path) -> AsyncIterator[Chain]:
    """The module's anvil, with this test's own escrow, tokens and accounts on it."""
    async with Chain.open(module_anvil, tmp_path) as opened:
        yield opened
