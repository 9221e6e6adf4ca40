"""The journal's migrations are logged: each version applied, once it is committed, and a
migration that failed with the version the file was left at."""

from __future__ import annotations

import logging

import pytest

from tclk_tui.store import LATEST_VERSION, MIGRATIONS, Journal, Migration, MigrationError

LOGGER = "tclk_tui.store.migrations"


def said(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == LOGGER]


def test_a_fresh_journal_logs_every_version_it_was_brought_to(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="tclk_tui")
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    assert said(caplog) == [("INFO", f"journal migrated to schema version {m.version}: "
                             f"{m.description}") for m in MIGRATIONS]
    caplog.clear()
    Journal(path).close()  # nothing to do, nothing said
    assert said(caplog) == []


def test_a_failed_migration_is_logged_with_the_version_kept_and_no_success_claimed(
        tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="tclk_tui")
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    caplog.clear()
    broken = (*MIGRATIONS,
              Migration(LATEST_VERSION + 1, "fine", ("CREATE TABLE fine (x)",)),
              Migration(LATEST_VERSION + 2, "broken", ("INSERT INTO no_such_table VALUES (1)",)))
    with pytest.raises(MigrationError):
        Journal(path, migrations=broken)
    [(level, message)] = said(caplog)
    assert level == "ERROR"
    assert message.startswith(f"journal schema left at version {LATEST_VERSION}: migration "
                              f"{LATEST_VERSION + 2} (broken) failed")
