"""Where a profile's control socket lives: a 0700 directory of the user's runtime dir.

The socket is named by a digest of the profile directory, so every data home gets its own socket
and the path stays under the 108 bytes a Unix socket address allows.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import warnings
from pathlib import Path

APP = "tclk-tui"


class RuntimeDirUnsafe(OSError):
    """The runtime directory is not ours alone; a socket there could be read by others."""


def runtime_dir() -> Path:
    """The user's runtime dir for the app (XDG_RUNTIME_DIR), else a private one under /tmp."""
    try:
        import platformdirs

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            base = Path(platformdirs.user_runtime_dir(APP, appauthor=False))
    except ImportError:  # pragma: no cover - platformdirs is a dependency
        base = Path(tempfile.gettempdir()) / f"runtime-{os.getuid()}" / APP
    return base


def socket_path(profile_dir: Path) -> Path:
    digest = hashlib.sha256(str(Path(profile_dir).resolve()).encode()).hexdigest()[:20]
    return runtime_dir() / f"{digest}.sock"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) 0700 and check it is ours and closed to others."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise RuntimeDirUnsafe(f"{path} is not a directory owned by this user")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path
