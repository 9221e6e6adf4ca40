"""What the operator reads when an engine call fails.

The project's own exceptions carry operator-readable messages that never hold a secret (a rule
every layer keeps), so their text is shown, made inert. Anything else is a bug or a library
failure whose message we did not write: only its type is shown, so nothing unexpected (a path,
a value) leaks onto a shared screen. A registry command's refusal (`CommandError`) is its
message, less the "refused: " a gate refusal starts with: whoever shows it says so already.
"""

from __future__ import annotations

from tclk_tui.engine.commands import CommandError
from tclk_tui.engine.gates import GateRefused
from tclk_tui.engine.words import plain_words
from tclk_tui.tui.safe import clean

PROJECT_PACKAGE = "tclk_tui."
MAX_MESSAGE = 300
GATE_REFUSAL = "refused: "


def describe_error(exc: BaseException) -> str:
    if isinstance(exc, GateRefused):
        return clean(plain_words(exc.reason), max_len=MAX_MESSAGE)
    if isinstance(exc, CommandError):
        message = exc.message.removeprefix(GATE_REFUSAL).strip() or exc.kind
        return clean(plain_words(message.splitlines()[0]), max_len=MAX_MESSAGE)
    if type(exc).__module__.startswith(PROJECT_PACKAGE):
        message = str(exc).strip() or type(exc).__name__
        return clean(plain_words(message.splitlines()[0]), max_len=MAX_MESSAGE)
    return f"unexpected error ({type(exc).__name__})"
