"""The command palette's provider: every action the app offers, read from the app's state.

It replaces Textual's default system commands (which include a screenshot command that could
capture a secret on screen) with the app's own list. An entry that stands for an engine
command takes its help from the command registry (`engine_command`), so the palette describes
an operation in the same words as the CLI's `--help`; a gated one still opens the app's own
confirm dialog, and the engine re-checks whatever the dialog says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.command import DiscoveryHit, Hit, Hits, Provider

from tclk_tui.engine.commands import REGISTRY


@dataclass(frozen=True, slots=True)
class PaletteCommand:
    title: str
    help: str
    run: Callable[[], object]
    # The command's own short name ("lock" for "Deal: lock", "board" for "Show board"): typed
    # exactly, it puts this entry on top.
    name: str = ""


def _words(text: str) -> str:
    return " ".join(text.casefold().split())


def rank(query: str, command: PaletteCommand, fuzzy: float) -> float:
    """The entry's place for `query`, from 0 to 1, given Textual's fuzzy score (`fuzzy`).

    The fuzzy score alone ties "Sort offers by lock" with "Deal: lock" for "lock", so an exact
    match of the title or the name comes first, then one they start with, then the rest by
    fuzzy score; within each, the shorter title first.
    """
    typed = _words(query)
    names = [_words(command.title)] + ([_words(command.name)] if command.name else [])
    closeness = fuzzy / (fuzzy + 1) if fuzzy > 0 else 0.0
    shorter = 0.001 / (1 + len(command.title))
    if typed in names:
        return 0.99 + shorter
    if any(name.startswith(typed) for name in names):
        return 0.85 + 0.1 * closeness + shorter
    return 0.8 * closeness + shorter


def engine_command(name: str, run: Callable[[], object], *, title: str | None = None,
                   target: str = "") -> PaletteCommand:
    """The palette entry for registry command `name` (titled `Deal: <name>` unless given)."""
    command = REGISTRY[name]
    help_ = command.summary + (f" ({target})" if target else "")
    if command.gated:
        help_ += ", behind a confirm dialog"
    return PaletteCommand(title or f"Deal: {name}", help_, run, name=name)


class TclkCommands(Provider):
    def _commands(self) -> list[PaletteCommand]:
        source = getattr(self.app, "palette_commands", None)
        return list(source()) if callable(source) else []

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.title, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            score = max(matcher.match(command.title),
                        matcher.match(command.name) if command.name else 0.0)
            if score > 0:
                yield Hit(rank(query, command, score), matcher.highlight(command.title),
                          command.run, text=command.title, help=command.help)
