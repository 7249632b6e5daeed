"""The per-user cache folder shared by the emulator build and compiled DPU programs.

A cached DPU program runs as native code on the emulator, so the folders that hold them
must be the user's own: :func:`private_dir` creates missing folders readable by the user
only and refuses, with :class:`~pyupmem.errors.CacheFolderError`, a folder another user
owns or that others can write (as ssh does with ``~/.ssh`` and pip with its cache).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from pyupmem.errors import CacheFolderError

_FIX = (
    "Fix: set PYUPMEM_CACHE_DIR to a folder of your own that you can write, or unset it "
    "(default ~/.cache/pyupmem)"
)


def cache_dir() -> Path:
    """``$PYUPMEM_CACHE_DIR``, else ``$XDG_CACHE_HOME/pyupmem``, else ``~/.cache/pyupmem``."""
    explicit = os.environ.get("PYUPMEM_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "pyupmem"


def check_private(folder: Path) -> None:
    """Raise :class:`CacheFolderError` unless ``folder`` is a folder that the user owns and
    that neither its group nor others can write."""
    try:
        info = folder.lstat()
        if stat.S_ISLNK(info.st_mode):
            info = folder.stat()
    except OSError as error:
        raise CacheFolderError(
            f"cannot use the cache folder {folder}: {error.strerror or error}. {_FIX}"
        ) from error
    if not stat.S_ISDIR(info.st_mode):
        raise CacheFolderError(f"the cache path {folder} is not a folder. {_FIX}")
    if info.st_uid != os.getuid():
        raise CacheFolderError(
            f"the cache folder {folder} belongs to user id {info.st_uid}, not to you "
            f"({os.getuid()}); programs cached there run as native code, so pyupmem refuses it. "
            "Fix: set PYUPMEM_CACHE_DIR to a folder of your own"
        )
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise CacheFolderError(
            f"the cache folder {folder} can be written by others (mode "
            f"{stat.S_IMODE(info.st_mode):o}); programs cached there run as native code, so "
            f"pyupmem refuses it. Fix: chmod go-w {folder}, or set PYUPMEM_CACHE_DIR to a "
            "private folder"
        )


def private_dir(folder: Path, root: Path | None = None) -> Path:
    """Create ``folder`` (and its missing parents below ``root``) with mode 0700, then check
    it and every folder from ``root`` down to it with :func:`check_private`.

    Args:
        folder: the folder to create and check.
        root: the highest folder checked (default: ``folder`` alone).
    """
    root = folder if root is None else root
    chain = [folder, *folder.parents]
    below_root = chain[: chain.index(root) + 1] if root in chain else [folder]
    for path in reversed(below_root):
        try:
            path.mkdir(mode=0o700, parents=True)
        except FileExistsError:
            pass
        except OSError as error:  # a file on the way, /proc, a read-only file system ...
            raise CacheFolderError(
                f"cannot create the cache folder {path}: {error.strerror or error}. {_FIX}"
            ) from error
        check_private(path)
    return folder
