"""The per-user cache folder shared by the emulator build and compiled DPU programs."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """``$PYUPMEM_CACHE_DIR``, else ``$XDG_CACHE_HOME/pyupmem``, else ``~/.cache/pyupmem``."""
    explicit = os.environ.get("PYUPMEM_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    root = Path(xdg) if xdg else Path.home() / ".cache"
    return root / "pyupmem"
