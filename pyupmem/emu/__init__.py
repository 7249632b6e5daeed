"""The bundled emulator: a ``libdpu`` that runs DPU programs built with the host C compiler.

:func:`build` compiles the emulator once per user and source version into the cache folder
and returns an :class:`Emulator` with the paths a host or DPU build needs. Nothing here
needs more than the standard library and a C compiler.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pyupmem._cache import cache_dir

SOURCE_DIR = Path(__file__).resolve().parent
DEFAULT_NR_RANKS = 40
"""Ranks in the emulated system when neither the profile (``nrRanks``) nor
``PYUPMEM_EMU_NR_RANKS`` says otherwise: 40 ranks of 64 DPUs, a full UPMEM server."""


class EmulatorBuildError(RuntimeError):
    """The emulator's C sources failed to compile; the message holds the compiler output."""


@dataclass(frozen=True)
class Emulator:
    """Where a built emulator lives.

    Attributes:
        root: the build folder.
        libdpu: the host library, with libdpu's C interface.
        libdpurt: the DPU runtime that DPU programs link with.
        bin_dir: holds ``dpu-upmem-dpurte-clang`` and ``dpu-pkg-config``.
        host_include: the folder holding the host ``dpu.h``.
        dpu_include: the folder holding the DPU-side headers (``defs.h``, ``mram.h`` ...).
    """

    root: Path

    @property
    def libdpu(self) -> Path:
        return self.root / "lib" / "libdpu.so"

    @property
    def libdpurt(self) -> Path:
        return self.root / "lib" / "libdpurt.so"

    @property
    def bin_dir(self) -> Path:
        return self.root / "bin"

    @property
    def dpu_compiler(self) -> Path:
        return self.bin_dir / "dpu-upmem-dpurte-clang"

    @property
    def host_include(self) -> Path:
        return self.root / "include" / "host"

    @property
    def dpu_include(self) -> Path:
        return self.root / "include" / "dpu"

    def shell_lines(self) -> str:
        """Shell lines that put the emulator's toolchain on PATH (for ``eval``)."""
        return f'export PATH="{self.bin_dir}:$PATH"\nexport UPMEM_EMU_HOME="{self.root}"\n'


def _source_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(SOURCE_DIR.rglob("*")):
        if path.is_file() and path.suffix in {".c", ".h", ".S", ".ld", ".in", ""}:
            if "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(SOURCE_DIR)).encode())
            digest.update(path.read_bytes())
    compiler = os.environ.get("CC", "cc")
    digest.update(compiler.encode())
    return digest.hexdigest()[:16]


def _write_tool(template: Path, target: Path, emulator: Emulator) -> None:
    text = template.read_text()
    text = text.replace("@ROOT@", str(emulator.root)).replace("@CC@", os.environ.get("CC", "cc"))
    target.write_text(text)
    target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def build(force: bool = False) -> Emulator:
    """Build the emulator if needed and return where it is.

    The build is cached by the digest of the sources, so the first call takes a few
    seconds and later ones return at once. Concurrent callers (several processes) wait
    for one another through a lock file.

    Raises:
        EmulatorBuildError: the C compiler failed; the message carries its output.
    """
    base = cache_dir() / "emulator"
    base.mkdir(parents=True, exist_ok=True)
    emulator = Emulator(base / _source_digest())
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = emulator.root / ".complete"
        if done.exists() and not force:
            return emulator
        if emulator.root.exists():
            shutil.rmtree(emulator.root)
        (emulator.root / "bin").mkdir(parents=True)
        shutil.copytree(SOURCE_DIR / "include", emulator.root / "include")
        shutil.copy(SOURCE_DIR / "toolchain" / "mram.ld", emulator.root / "mram.ld")
        result = subprocess.run(
            ["make", "-s", "-C", str(SOURCE_DIR), f"BUILD={emulator.root}"],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise EmulatorBuildError(
                f"building the emulator failed (make exit {result.returncode}):\n"
                f"{result.stdout}{result.stderr}"
            )
        for tool in ("dpu-upmem-dpurte-clang", "dpu-pkg-config"):
            _write_tool(SOURCE_DIR / "toolchain" / f"{tool}.in", emulator.bin_dir / tool, emulator)
        done.touch()
    return emulator
