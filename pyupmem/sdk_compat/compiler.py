"""The SDK's ``dpu.compiler``: compile DPU C sources with ``dpu-upmem-dpurte-clang``.

As in the SDK, :meth:`Compiler.compile` runs the compiler once and raises
:class:`subprocess.CalledProcessError` when it fails. ``DEFAULT_DPU_COMPILER`` is the
compiler of pyupmem's active backend (the emulator's, or the SDK's), looked up on first use.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import Any

# DEFAULT_DPU_COMPILER is an attribute too, made on first use (see __getattr__).
__all__ = ["O0", "O1", "O2", "O3", "Compiler", "Os", "Oz", "default_compiler", "getDpuArchVersion"]

O0 = "-O0"
"""Optimisation level ``-O0``."""
O1 = "-O1"
"""Optimisation level ``-O1``."""
O2 = "-O2"
"""Optimisation level ``-O2`` (what :meth:`dpu.DpuSet.load` compiles ``c_source`` with)."""
O3 = "-O3"
"""Optimisation level ``-O3``."""
Os = "-Os"
"""Optimisation level ``-Os``."""
Oz = "-Oz"
"""Optimisation level ``-Oz``."""

DPU_TARGET = "dpu-upmem-dpurte"
"""The DPU compiler's target triple."""

_CHIP_ID_FILE = "/sys/class/dpu_rank/dpu_rank0/dpu_chip_id"


def getDpuArchVersion(target: str | None) -> str | None:  # the SDK's name
    """The ``-mcpu`` for ``target``: ``$DPU_ARCH_VERSION``, else ``v1B`` when the machine's
    first rank reports a chip id above 8, else ``v1A``; None for a target that is not the DPU.
    """
    if target != DPU_TARGET:
        return None
    version = os.environ.get("DPU_ARCH_VERSION")
    if not version:
        try:
            with open(_CHIP_ID_FILE) as chip_id:
                if int(chip_id.readline()) > 8:
                    version = "v1B"
        except (OSError, ValueError):
            pass  # no DPU hardware here
    return version or "v1A"


class Compiler:
    """A DPU C compiler and how to call it.

    Args:
        path: the compiler executable.
        target: the target triple passed as ``--target=`` (None: the compiler's default).
        verbose: print each command and let the compiler's output through.

    Attributes:
        path: the compiler executable.
        target: its default target.
        verbose: whether commands and output are shown.
    """

    def __init__(self, path: str, target: str | None = None, verbose: bool = False):
        self.path = path
        self.target = target
        self.verbose = verbose

    def compile(
        self,
        sources: str | Sequence[str],
        output: str | None = None,
        includes: Sequence[str] = (),
        defines: Mapping[str, Any] | None = None,
        options: Sequence[str] = (),
        target: str | None = None,
        opt_lvl: str | None = None,
        debug: bool = True,
        verbose: bool = False,
    ) -> subprocess.CompletedProcess:
        """Compile (and link) ``sources``.

        Args:
            sources: a source file or a list of them.
            output: the output file (``-o``); None leaves it to the compiler.
            includes: ``-I`` folders.
            defines: ``-D`` macros (a value of None defines the name alone).
            options: further arguments, after the sources.
            target: the target for this call (default: :attr:`target`).
            opt_lvl: an optimisation level such as :data:`O2`.
            debug: add ``-g`` (default True).
            verbose: print the command and let the output through, for this call.

        Returns:
            The finished compiler process (its output in ``stdout`` and ``stderr`` unless
            verbose).

        Raises:
            subprocess.CalledProcessError: the compiler exited with a non-zero status; its
                messages are in the exception's ``stderr``.
        """
        target = target if target is not None else self.target
        command = [self.path]
        if target is not None:
            command.append(f"--target={target}")
            version = getDpuArchVersion(target)
            if version is not None:
                command.append(f"-mcpu={version}")
        if opt_lvl is not None:
            command.append(opt_lvl)
        if debug:
            command.append("-g")
        for name, value in (defines or {}).items():
            command += ["-D", name if value is None else f"{name}={value}"]
        for folder in includes:
            command += ["-I", folder]
        command += [sources] if isinstance(sources, str) else list(sources)
        command += list(options)
        if output is not None:
            command += ["-o", output]
        shown = verbose or self.verbose
        if shown:
            print(" ".join(command))
        return subprocess.run(
            command,
            check=True,
            stdout=sys.stdout if shown else subprocess.PIPE,
            stderr=sys.stderr if shown else subprocess.PIPE,
            text=True,
        )


def default_compiler() -> Compiler:
    """The DPU compiler of pyupmem's active backend, for the DPU target.

    Raises:
        pyupmem.errors.BackendError: the backend has no DPU compiler.
    """
    from pyupmem.driver.backend import find_backend
    from pyupmem.errors import BackendError

    backend = find_backend()
    if backend.compiler is None:
        raise BackendError(
            f"the {backend.kind} backend ({backend.library}) has no dpu-upmem-dpurte-clang: "
            "put the SDK's bin folder on PATH or set UPMEM_HOME"
        )
    return Compiler(str(backend.compiler), DPU_TARGET)


def __getattr__(name: str) -> Any:
    # DEFAULT_DPU_COMPILER is looked up on first use: importing `dpu` finds no backend yet.
    if name == "DEFAULT_DPU_COMPILER":
        found = default_compiler()
        globals()[name] = found
        return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
