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


def mpich_segments() -> set[str]:
    """MPICH's shared-memory segments in /dev/shm now."""
    shm = Path("/dev/shm")
    return {p.name for p in shm.glob("mpich_shm_*")} if shm.is_dir() else set()


def processes_mentioning(text: str) -> list[int]:
    """Processes (not zombies) whose command line contains ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if text.encode() not in (entry / "cmdline").read_bytes():
                continue
            if ") Z" in (entry / "stat").read_text():
                continue
        except OSError:
            continue
        found.append(int(entry.name))
    return found


def assert_a_usage_error_ends_cleanly(result: subprocess.CompletedProcess[str], message: str,
                                      before: set[str], marker: str) -> None:
    """A usage error under mpiexec: said once, every process ended non-zero (mpiexec's
    status), no MPICH segment left in /dev/shm, no process left running."""
    assert result.returncode != 0
    assert result.stderr.count(message) == 1, result.stderr
    assert "Traceback" not in result.stderr and "MPI_Abort" not in result.stderr, result.stderr
    assert mpich_segments() - before == set(), "MPICH's shared memory was left in /dev/shm"
    assert processes_mentioning(marker) == []
