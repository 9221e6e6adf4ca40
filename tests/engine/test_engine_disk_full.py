"""A journal that cannot be written (the disk is full) is a typed engine error that says
whether the action happened, never a raw sqlite3 error."""

from __future__ import annotations

import pytest

from tclk_tui.engine.errors import JournalUnwritable
from tclk_tui.protocol.naming import OFFER_ROOM
from tests.engine.helpers import Pair, draft


def _fill_the_disk(wallet) -> None:
    """SQLite's own page cap: every further write fails with SQLITE_FULL, as on a full disk."""
    db = wallet.journal._live()
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")
    db.execute("PRAGMA cache_size = 0")


async def test_a_full_disk_says_whether_the_line_was_posted(pair: Pair):
    _fill_the_disk(pair.alice)
    posted = 0
    with pytest.raises(JournalUnwritable) as caught:
        for _ in range(50):  # the first write that needs a new page fails
            await pair.alice.post_offer(draft())
            posted += 1
    # Which write met the full disk depends on the file's pages: before the post (nothing was
    # posted) or after it (the line is on the venue); the error says which, truthfully.
    export = await pair.alice.client.export(OFFER_ROOM)
    mine = [r for r in export.records if r.sender == pair.alice.did]
    assert len(mine) == posted + (1 if caught.value.happened else 0)
    assert ("nothing was posted" in str(caught.value)) is not caught.value.happened
    assert "database or disk is full" in str(caught.value)
    journaled = {row.text for row in pair.alice.journal.outbox()}
    assert all(r.text in journaled for r in mine)
