"""The profile's log: a rotating file that says what the wallet did and why, and never a secret.

Two guards sit on the handler. A record carrying a secret value object (`SecretValue` and its
kin, found among its arguments) is refused outright: its text is replaced by a notice. Any hex in
a formatted message equal to a secret the vault keeper holds is redacted. Neither relies on the
code that logs being careful.
"""

from __future__ import annotations

import logging
import logging.handlers
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from tclk_tui.vault.secret import SecretValue

LOG_FILE = "tclk-tui.log"
MAX_BYTES = 2 * 1024 * 1024
BACKUPS = 5
REDACTED = "<redacted>"
_HEX = re.compile(r"(?:0x)?([0-9a-fA-F]{32,})")
LEVELS = ("debug", "info", "warning", "error")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class SecretFilter(logging.Filter):
    """Refuse records that carry secret values; redact hex equal to a held secret."""

    def __init__(self, held: Callable[[], Iterable[str]]) -> None:
        super().__init__()
        self._held = held

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else (record.args,)
        if isinstance(record.msg, SecretValue) or any(isinstance(a, SecretValue) for a in args):
            record.msg, record.args = "a log record carrying a secret value was refused", ()
            return True
        try:
            text = record.getMessage()
        except Exception:  # a bad format string: keep the template, drop the arguments
            text = str(record.msg)
        text = _visible(text)  # a stranger's text cannot forge log lines
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
            record.exc_info, record.exc_text = None, None
        if _HEX.search(text):
            secrets = {s.lower().removeprefix("0x") for s in self._held() if s}
            text = _HEX.sub(lambda m: REDACTED if m.group(1).lower() in secrets
                            else m.group(0), text)
        record.msg, record.args = text, ()
        return True


def _visible(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


def setup_logging(profile_dir: Path, level: str, held: Callable[[], Iterable[str]]
                  ) -> logging.Handler:
    """Attach the profile's rotating log (0600) to the package's loggers; returns the handler."""
    profile_dir.mkdir(parents=True, exist_ok=True)
    path = profile_dir / LOG_FILE
    path.touch(mode=0o600, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=MAX_BYTES,
                                                   backupCount=BACKUPS, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(SecretFilter(held))
    root = logging.getLogger("tclk_tui")
    root.setLevel(getattr(logging, level.upper(), logging.INFO))
    root.addHandler(handler)
    return handler


def remove_logging(handler: logging.Handler) -> None:
    logging.getLogger("tclk_tui").removeHandler(handler)
    handler.close()
