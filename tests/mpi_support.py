"""Starting real MPI processes from a test: the environment's ``mpiexec`` (the MPICH
wheel of the ``mpi`` extra), or a skip that says why."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def mpiexec() -> str:
    """The ``mpiexec`` beside this Python (else on PATH); skips the test without mpi4py."""
    pytest.importorskip("mpi4py", reason="mpi4py is not installed (pip install '.[mpi]')")
    here = Path(sys.executable).parent / "mpiexec"
    found = str(here) if here.exists() else shutil.which("mpiexec")
    if found is None:
        pytest.skip("mpi4py is installed but no mpiexec was found beside Python or on PATH")
    return found


def run_mpi(n: int, args: list[str], timeout: float = 120, check: bool = True, **env: str
            ) -> subprocess.CompletedProcess[str]:
    """``mpiexec -n n python ARGS`` from the repository root; with ``check``, fails the
    test on a bad exit."""
    environment = {**os.environ, "PYUPMEM_EMU_QUIET": "1", **env}
    for name in [k for k in environment if k.startswith(("PMI_", "OMPI_", "PMIX_"))]:
        del environment[name]  # a test run under mpirun must not leak its own process info
    command = [mpiexec(), "-n", str(n), sys.executable, *args]
    result = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True,
                            text=True, timeout=timeout)
    assert not check or result.returncode == 0, (
        f"{' '.join(command)} exited {result.returncode}:\n{result.stdout[-3000:]}\n"
        f"{result.stderr[-3000:]}")
    return result
