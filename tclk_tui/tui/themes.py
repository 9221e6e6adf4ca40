"""Themes as data: TOML files in the top-level `themes/` folder, one `textual.theme.Theme` each.

A theme file may only set `Theme` fields; an unknown key, a wrong type or a colour Textual cannot
parse makes that file refused with a reason instead of half-applied, so a typo never leaves the
operator with unreadable text.
"""

from __future__ import annotations

import dataclasses
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

DEFAULT_THEME = "tclk-dark"
FALLBACK_THEME = "textual-dark"
COLOR_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground",
                "background", "surface", "panel", "boost")
_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "name": str,
    **dict.fromkeys(COLOR_FIELDS, str),
    "dark": bool,
    "luminosity_spread": (int, float),
    "text_alpha": (int, float),
    "variables": dict,
}


class ThemeFileError(ValueError):
    """A theme file that cannot be used, with the reason."""


@dataclass(frozen=True, slots=True)
class ThemeLoad:
    themes: tuple[Theme, ...]
    problems: tuple[str, ...]  # "<file>: <reason>" for every refused file


def default_themes_dir() -> Path:
    """The top-level `themes/` folder: next to the package in a source checkout (and an editable
    install), else where a wheel install put it (`<prefix>/share/tclk-tui/themes`)."""
    beside = Path(__file__).resolve().parents[2] / "themes"
    if beside.is_dir():
        return beside
    return Path(sys.prefix) / "share" / "tclk-tui" / "themes"


def theme_from_mapping(data: dict[str, object]) -> Theme:
    known = {f.name for f in dataclasses.fields(Theme)} - {"ansi"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ThemeFileError(f"unknown key(s): {', '.join(unknown)}")
    for key in ("name", "primary"):
        if key not in data:
            raise ThemeFileError(f"missing required key: {key}")
    for key, value in data.items():
        expected = _FIELD_TYPES.get(key)
        if expected is not None and (
            not isinstance(value, expected) or (expected is not bool and isinstance(value, bool))
        ):
            raise ThemeFileError(f"{key} has the wrong type")
    name = data["name"]
    assert isinstance(name, str)
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise ThemeFileError("name must be letters, digits, '-' or '_'")
    for key in COLOR_FIELDS:
        value = data.get(key)
        if isinstance(value, str):
            _check_colour(key, value)
    variables = data.get("variables", {})
    assert isinstance(variables, dict)
    for key, value in variables.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise ThemeFileError("variables must map names to strings")
    return Theme(**data)  # type: ignore[arg-type]


def _check_colour(key: str, value: str) -> None:
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeFileError(f"{key} is not a colour: {value!r}") from None


def load_theme_file(path: Path) -> Theme:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ThemeFileError(f"cannot read: {type(exc).__name__}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ThemeFileError(f"not valid TOML: {exc}") from None
    return theme_from_mapping(data)


def load_themes(folder: Path | None = None) -> ThemeLoad:
    """Every `*.toml` theme in `folder`, sorted by file name; bad files are reported, skipped."""
    folder = folder if folder is not None else default_themes_dir()
    themes: list[Theme] = []
    problems: list[str] = []
    names: set[str] = set()
    if not folder.is_dir():
        return ThemeLoad((), (f"{folder.name}: no themes folder",))
    for path in sorted(folder.glob("*.toml")):
        try:
            theme = load_theme_file(path)
        except ThemeFileError as exc:
            problems.append(f"{path.name}: {exc}")
            continue
        if theme.name in names:
            problems.append(f"{path.name}: duplicate theme name {theme.name}")
            continue
        names.add(theme.name)
        themes.append(theme)
    return ThemeLoad(tuple(themes), tuple(problems))
