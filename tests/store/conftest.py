import pytest

from tclk_tui.store import Journal


class FakeClock:
    """A settable millisecond clock, so timestamps in assertions are exact."""

    def __init__(self, start: int = 1_760_000_000_000) -> None:
        self.now = start

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def journal(tmp_path, clock):
    j = Journal(tmp_path / "profile.sqlite", clock=clock)
    yield j
    j.close()
