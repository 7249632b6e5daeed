"""Shared pytest set-up: property-based tests are reproducible in CI, the tests of Ctrl-C
see SIGINT raise as a terminal's Python does, and no two checks of /dev/shm for MPICH's
segments overlap when pytest-xdist runs the files on several workers (``--dist loadfile``,
pyproject's addopts, gives each file to one worker, so its module and session fixtures,
such as the docs build, are made once)."""

import fcntl
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# In CI (CI=true) every run draws the same examples, so a red build is reproducible.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


# The files that start MPI processes: each checks that a run leaves no MPICH segment in
# /dev/shm beyond those it found, so no two of their tests may run at once.
_MPI_FILES = {"test_distributed.py", "test_pimopt_mpi.py", "test_rl_mpi.py"}


@pytest.fixture(autouse=True)
def one_mpi_test_at_a_time(request: pytest.FixtureRequest) -> Iterator[None]:
    """Holds a lock shared by every pytest process of this machine while a test of the
    MPI files runs (xdist's workers, or another run of the suite)."""
    if request.node.path.name not in _MPI_FILES:
        yield
        return
    with open(Path(tempfile.gettempdir()) / "pyupmem-tests-mpi.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT raises ``KeyboardInterrupt`` during the test, as in a terminal.

    A job started in the background without job control inherits SIGINT ignored; Python
    then leaves it ignored, so a real Ctrl-C and ``_thread.interrupt_main()`` do nothing
    and a test that waits for one would wait for ever.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
