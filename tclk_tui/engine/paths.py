"""The profile's directories, private from the first moment they exist.

`Path.mkdir(parents=True, mode=0o700)` gives the mode to the last directory only; the parents
it creates get the umask's default (usually 0755), which lets other local users list the data
directory and learn profile names. Every directory created here is 0700, whatever the umask.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PRIVATE_DIR = 0o700


def make_private_dir(path: Path) -> None:
    """Create `path` and any missing parents, each 0700; directories that exist are left as
    the operator made them."""
    missing: list[Path] = []
    probe = Path(path)
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    for directory in (Path(path), *Path(path).parents):
        if directory.exists() and not directory.is_dir():
            from tclk_tui.engine.errors import EngineError

            raise EngineError(f"cannot create the directory {path}: {directory} is a file, "
                              "not a directory (move it away or choose another place)")
        if directory.exists():
            break
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=PRIVATE_DIR)
            os.chmod(directory, PRIVATE_DIR)  # the umask may have taken bits away
