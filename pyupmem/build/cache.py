"""The build cache as a whole: what it holds, checking every stored build, clearing it.

The cache folder (``$PYUPMEM_CACHE_DIR``, else ``$XDG_CACHE_HOME/pyupmem``, else
``~/.cache/pyupmem``) holds two kinds of build:

- ``emulator/<digest>/``: one emulator build per source version, C compiler and Python
  interpreter (:func:`pyupmem.emu.build`);
- ``programs/<key>/<digest>/``: one compiled DPU program (:func:`pyupmem.build_program`).

Each records the hashes of what it holds; :func:`verify_cache` checks them all (as every
use does for the one build it needs) and :func:`clear_cache` removes everything. They are
what ``python -m pyupmem cache info|verify|clear`` runs.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pyupmem import emu
from pyupmem.build.builder import _locked, check_cached_build
from pyupmem.driver.cache_folder import cache_dir

EntryKind = Literal["emulator", "program"]
"""The kinds of build the cache stores: the emulator, or a compiled DPU program."""


@dataclass(frozen=True)
class CacheEntry:
    """One stored build.

    Attributes:
        kind: ``"emulator"`` or ``"program"``.
        path: its folder.
        name: the emulator build's digest, or the DPU program's binary name.
        size: bytes of its files (links not followed).
    """

    kind: EntryKind
    path: Path
    name: str
    size: int


def _size(folder: Path) -> int:
    total = 0
    for root, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass  # removed meanwhile
    return total


def _program_name(build: Path) -> str:
    """The binary's name: the one executable file of the build folder."""
    for path in sorted(build.iterdir()):
        if path.is_file() and os.access(path, os.X_OK):
            return path.name
    return "?"


def _emulator_builds(root: Path) -> list[Path]:
    folder = root / "emulator"
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def _program_builds(root: Path) -> list[Path]:
    """Every finished or damaged build folder; the ``.build-*`` folders of builds in
    progress are left out."""
    folder = root / "programs"
    if not folder.is_dir():
        return []
    return sorted(
        build
        for key in folder.iterdir()
        if key.is_dir()
        for build in key.iterdir()
        if build.is_dir() and not build.name.startswith(".")
    )


def cache_entries() -> list[CacheEntry]:
    """Every build stored in the cache folder, emulator builds first."""
    root = cache_dir()
    entries = [
        CacheEntry("emulator", path, path.name, _size(path)) for path in _emulator_builds(root)
    ]
    entries += [
        CacheEntry("program", path, _program_name(path), _size(path))
        for path in _program_builds(root)
    ]
    return entries


def cache_size() -> int:
    """Bytes of every file in the cache folder (builds, sources, records, locks)."""
    root = cache_dir()
    return _size(root) if root.is_dir() else 0


@contextmanager
def _emulator_lock(root: Path) -> Iterator[None]:
    """Hold the lock :func:`pyupmem.emu.build` takes, so no build is half-written."""
    folder = root / "emulator"
    if not folder.is_dir():
        yield
        return
    with _locked(folder):
        yield


def verify_cache(remove: bool = True) -> list[tuple[CacheEntry, str]]:
    """Check every stored build against the hashes it recorded.

    Args:
        remove: delete the builds that fail (default True); the next use rebuilds them.

    Returns:
        Each damaged build with what is wrong with it (empty when all are sound).
    """
    root = cache_dir()
    damaged: list[tuple[CacheEntry, str]] = []
    with _emulator_lock(root):
        for path in _emulator_builds(root):
            problem = emu.check_build(path)
            if problem is not None:
                damaged.append((CacheEntry("emulator", path, path.name, _size(path)), problem))
                if remove:
                    shutil.rmtree(path, ignore_errors=True)
    for path in _program_builds(root):
        with _locked(path.parent):
            problem = check_cached_build(path)
            if problem is not None:
                entry = CacheEntry("program", path, _program_name(path), _size(path))
                damaged.append((entry, problem))
                if remove:
                    shutil.rmtree(path, ignore_errors=True)
    return damaged


def clear_cache() -> int:
    """Remove every build and the cache folder itself (when nothing else is in it).

    Run it while no pyupmem program runs: a running one keeps the emulator it loaded, but
    its next DPU build needs the emulator's compiler. Builds in progress are waited for.

    Returns:
        The bytes freed.
    """
    root = cache_dir()
    freed = cache_size()
    with _emulator_lock(root):
        for path in _emulator_builds(root):
            shutil.rmtree(path)
    shutil.rmtree(root / "programs", ignore_errors=True)
    shutil.rmtree(root / "emulator", ignore_errors=True)
    try:
        root.rmdir()  # only when empty: PYUPMEM_CACHE_DIR may name a folder with more in it
    except OSError:
        pass
    return freed - cache_size()
