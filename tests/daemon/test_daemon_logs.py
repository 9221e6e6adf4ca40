"""The profile log: what it refuses, what it redacts, and that it rotates in the profile dir."""

from __future__ import annotations

import logging
import logging.handlers

from tclk_tui.daemon.logs import LOG_FILE, REDACTED, SecretFilter, remove_logging, setup_logging
from tclk_tui.vault.secret import SecretValue

HELD = "0x" + "ab" * 32
OTHER = "0x" + "cd" * 32


def _logged(tmp_path, *calls) -> str:
    handler = setup_logging(tmp_path, "debug", lambda: [HELD])
    try:
        logger = logging.getLogger("tclk_tui.test")
        for level, msg, *args in calls:
            logger.log(level, msg, *args)
    finally:
        remove_logging(handler)
    return (tmp_path / LOG_FILE).read_text()


def test_hex_equal_to_a_held_secret_is_redacted_and_other_hex_is_kept(tmp_path):
    text = _logged(tmp_path, (logging.INFO, "reveal %s and %s", HELD, OTHER),
                   (logging.INFO, "bare %s upper %s", HELD[2:], HELD.upper()[2:]))
    assert HELD[2:].lower() not in text.lower()
    assert text.count(REDACTED) == 3
    assert OTHER in text


def test_a_record_carrying_a_secret_value_is_refused(tmp_path):
    text = _logged(tmp_path, (logging.INFO, "seed %r", SecretValue(bytes(32))))
    assert "refused" in text and "SecretValue" not in text


def test_a_secret_in_an_exception_is_redacted_too(tmp_path):
    handler = setup_logging(tmp_path, "info", lambda: [HELD])
    try:
        try:
            raise ValueError(f"bad {HELD}")
        except ValueError:
            logging.getLogger("tclk_tui.test").exception("failed")
    finally:
        remove_logging(handler)
    text = (tmp_path / LOG_FILE).read_text()
    assert "ValueError" in text and HELD[2:] not in text and REDACTED in text


def test_control_characters_of_strangers_cannot_forge_lines(tmp_path):
    text = _logged(tmp_path, (logging.WARNING, "note: %s", "x\n2026 INFO forged\x1b[31m"))
    assert text.count("\n") == 1 and "\\x0a2026 INFO forged\\x1b[31m" in text


def test_level_and_rotation(tmp_path):
    text = _logged(tmp_path, (logging.DEBUG, "debug line"))
    assert "debug line" in text
    handler = setup_logging(tmp_path, "warning", lambda: [])
    try:
        assert isinstance(handler, logging.handlers.RotatingFileHandler)
        assert handler.maxBytes > 0 and handler.backupCount > 0
        logging.getLogger("tclk_tui.test").info("info line")
    finally:
        remove_logging(handler)
    assert "info line" not in (tmp_path / LOG_FILE).read_text()
    assert ((tmp_path / LOG_FILE).stat().st_mode & 0o777) == 0o600


def test_the_filter_never_asks_for_secrets_when_no_hex_is_logged():
    asked = []
    record = logging.LogRecord("tclk_tui", logging.INFO, __file__, 1, "plain %s", ("text",),
                               None)
    assert SecretFilter(lambda: asked.append(1) or []).filter(record)
    assert asked == [] and record.getMessage() == "plain text"
