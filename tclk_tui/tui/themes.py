"""Themes as data: TOML files, one `textual.theme.Theme` each.

The bundled themes ship inside the package (`tclk_tui/themes`, which the checkout's top-level
`themes/` points at) and are read through `importlib.resources`, so they are found however the
package was installed (a wheel, `pip install --user`, `--target`, editable). The operator's own
themes sit in the config folder's `themes/` (`user_config.user_themes_dir`) beside them.

A theme file may only set `Theme` fields; an unknown key, a wrong type or a colour Textual cannot
parse makes that file refused with a reason instead of half-applied, so a typo never leaves the
operator with unreadable text; the other themes still load.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

DEFAULT_THEME = "tclk-dark"
FALLBACK_THEME = "textual-dark"
BUNDLED_FOLDER = "themes"
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


def bundled_themes_dir() -> Traversable:
    """The themes shipped inside the package."""
    return files("tclk_tui") / BUNDLED_FOLDER


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


def load_theme_file(path: Traversable) -> Theme:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ThemeFileError(f"cannot read: {type(exc).__name__}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ThemeFileError(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise ThemeFileError("not valid TOML: nested too deep") from None
    return theme_from_mapping(data)


def load_themes(folder: Traversable | None = None, user_folder: Path | None = None
                ) -> ThemeLoad:
    """The bundled themes (or those in `folder`), then the operator's in `user_folder`, each
    folder sorted by file name. A bad file is reported ("<file>: <reason>", a user file by
    its full path, so it can be found) and skipped; so is a name already taken."""
    themes: list[Theme] = []
    problems: list[str] = []
    names: set[str] = set()
    bundled = folder if folder is not None else bundled_themes_dir()
    if bundled.is_dir():
        _load_folder(bundled, lambda entry: entry.name, themes, problems, names)
    else:
        problems.append(f"{bundled.name}: no themes folder")
    if user_folder is not None and user_folder.is_dir():
        _load_folder(user_folder, lambda entry: str(user_folder / entry.name), themes,
                     problems, names)
    return ThemeLoad(tuple(themes), tuple(problems))


def _load_folder(folder: Traversable, label: Callable[[Traversable], str], themes: list[Theme],
                 problems: list[str], names: set[str]) -> None:
    try:
        entries = sorted((entry for entry in folder.iterdir()
                          if entry.name.endswith(".toml") and entry.is_file()),
                         key=lambda entry: entry.name)
    except OSError as exc:
        problems.append(f"{folder.name}: cannot be read ({type(exc).__name__})")
        return
    for entry in entries:
        try:
            theme = load_theme_file(entry)
        except ThemeFileError as exc:
            problems.append(f"{label(entry)}: {exc}")
            continue
        if theme.name in names:
            problems.append(f"{label(entry)}: duplicate theme name {theme.name} (another file "
                            f"has it)")
            continue
        names.add(theme.name)
        themes.append(theme)
