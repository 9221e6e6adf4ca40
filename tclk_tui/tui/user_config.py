"""Where the operator's own files for the app live: the platform's config folder.

`keymap.toml` (keys moved by binding id) and `themes/*.toml` (themes beside the bundled ones).
Both are optional; a file that cannot be used is reported when the app starts, never fatal.
"""

from __future__ import annotations

from pathlib import Path

from tclk_tui.tui.keymap import KEYMAP_FILE

APP_NAME = "tclk-tui"
THEMES_FOLDER = "themes"


def config_dir() -> Path:
    """`~/.config/tclk-tui` on Linux (`$XDG_CONFIG_HOME` honoured), the platform's own
    elsewhere."""
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def keymap_file() -> Path:
    return config_dir() / KEYMAP_FILE


def user_themes_dir() -> Path:
    return config_dir() / THEMES_FOLDER
