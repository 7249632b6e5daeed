"""Several servers: one MPI process per PIM server, with sums in a fixed order.

A user with several PIM servers runs one process per server under ``mpirun`` (mpi4py;
``pip install 'pyupmem[mpi]'`` brings mpi4py and the MPICH wheel). Each process drives
its own server's DPUs; the host-level combine of an application (rl's tables, pimopt's
models) becomes a sum over the whole cluster with a fixed reduction order, so that ``K``
processes give bit for bit what one process with the same DPUs gives::

    cluster = Cluster.world()          # COMM_WORLD under mpirun, else one process
    mine = cluster.dpu_share(256)      # this process's DPUs, whole blocks of 64
    partials = ...                     # (my blocks, ...) partial sums, in block order
    total = cluster.sum_in_order(partials)   # the same bits on every process

**The order.** DPU results are summed first within each *block* of
:data:`BLOCK_DPUS` consecutive DPUs (one hardware rank), left to right, then the blocks'
partial sums left to right. A process owns whole blocks (:meth:`Cluster.dpu_share`), so
it can sum within its own blocks; :meth:`Cluster.sum_in_order` gathers every process's
block partials in rank order (an allgather) and sums all blocks left to right on every
process. One process summing the same blocks left to right (:func:`sum_in_order`) makes
exactly the same floating-point operations in the same order, hence the same bits, in
float32 or float64 alike; integer sums are exact in any order.

Without mpi4py, or outside ``mpirun``, :meth:`Cluster.world` is a single-process
cluster that needs no MPI at all.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from pyupmem.errors import ArgumentValueError

BLOCK_DPUS = 64
"""DPUs per block of the fixed reduction order: one hardware rank's DPUs."""

_LAUNCHER_VARIABLES = ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",
                       "MPI_LOCALNRANKS", "HYDRA_CONTROL_FD")


def under_mpirun() -> bool:
    """Whether this process was started by an MPI launcher (``mpirun``/``mpiexec`` of
    MPICH, Open MPI or a PMIx-based one), judged by the variables they set."""
    return any(name in os.environ for name in _LAUNCHER_VARIABLES)


def launcher_rank() -> int | None:
    """This process's number as the MPI launcher set it in the environment (readable
    before MPI starts), or None when no launcher started it."""
    for name in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"):
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value)
    return None


def usage_error(parser: Any, message: str) -> NoReturn:
    """An argument parser's error for a command line that may run under ``mpiexec``:
    every process meets it alike, so process 0 alone prints it (usage and one line), and
    every process exits with status 2 (before MPI starts: nothing to clean up)."""
    if launcher_rank() in (None, 0):
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def sum_in_order(partials: np.ndarray) -> np.ndarray:
    """The sum of ``partials`` ``(blocks, ...)`` over axis 0, strictly left to right, in
    their own dtype: ``((p[0] + p[1]) + p[2]) + ...`` elementwise. The rule every
    :class:`Cluster` follows, so one process and many agree bit for bit.

    Raises:
        ArgumentValueError: ``partials`` has no block axis or no blocks.
    """
    p = np.asarray(partials)
    if p.ndim < 1 or p.shape[0] < 1:
        raise ArgumentValueError(
            f"partials must have shape (blocks >= 1, ...), not {p.shape}")
    out = p[0].copy()
    for row in p[1:]:
        out += row
    return out


class Cluster:
    """The processes of one run and their fixed-order collective operations.

    Build one with :meth:`world` (or :meth:`single`); pass ``comm`` (an mpi4py
    communicator) to use another communicator. Every process of the cluster must make
    the same collective calls (:meth:`sum_in_order`, :meth:`allgather`, :meth:`bcast`,
    :meth:`barrier`) in the same order.
    """

    def __init__(self, comm: Any = None):
        self.comm = comm
        """The mpi4py communicator, or None for a single process without MPI."""
        self.rank: int = 0 if comm is None else int(comm.Get_rank())
        """This process's number, 0 to ``size - 1``."""
        self.size: int = 1 if comm is None else int(comm.Get_size())
        """The number of processes."""
        self.seconds: float = 0.0
        """Seconds this process has spent in collective operations (communication and
        waiting for the others): the *Inter-server* phase."""

    @classmethod
    def single(cls) -> Cluster:
        """A cluster of this process alone (no MPI)."""
        return cls(None)

    @classmethod
    def world(cls) -> Cluster:
        """mpi4py's ``COMM_WORLD`` when mpi4py is importable and this process runs under
        an MPI launcher (:func:`under_mpirun`), else :meth:`single`."""
        if not under_mpirun():
            return cls.single()
        try:
            from mpi4py import MPI
        except ImportError:
            return cls.single()
        return cls(MPI.COMM_WORLD)

    def __repr__(self) -> str:
        kind = "MPI" if self.comm is not None else "single process"
        return f"Cluster(rank={self.rank}, size={self.size}, {kind})"

    @property
    def is_root(self) -> bool:
        """Whether this is process 0 (the one that prints and writes outputs)."""
        return self.rank == 0

    def share(self, total: int) -> range:
        """This process's contiguous share of ``total`` items, in rank order.

        Uneven totals split as evenly as possible, the first ``total % size`` processes
        taking one item more: 10 items over 4 processes are ``range(0, 3)``,
        ``range(3, 6)``, ``range(6, 8)``, ``range(8, 10)``. A process may get none.

        Raises:
            ArgumentValueError: ``total`` is negative.
        """
        total = int(total)
        if total < 0:
            raise ArgumentValueError(f"cannot share {total} items: the total must be >= 0")
        base, extra = divmod(total, self.size)
        start = self.rank * base + min(self.rank, extra)
        return range(start, start + base + (self.rank < extra))

    def dpu_share(self, nr_dpus: int) -> range:
        """This process's DPUs among ``nr_dpus`` in all: whole blocks of
        :data:`BLOCK_DPUS` (:meth:`share` of the blocks; the last block may be short).

        So any total works as long as every process gets a block: ``nr_dpus`` must be
        above ``BLOCK_DPUS * (size - 1)``.

        Raises:
            ArgumentValueError: fewer blocks than processes.
        """
        nr_dpus = int(nr_dpus)
        blocks = -(-nr_dpus // BLOCK_DPUS)
        if blocks < self.size:
            raise ArgumentValueError(
                f"{nr_dpus} DPUs make {blocks} block(s) of {BLOCK_DPUS}, but the cluster has "
                f"{self.size} processes and each needs at least one block: use at least "
                f"{BLOCK_DPUS * (self.size - 1) + 1} DPUs in all (--dpus is the total over "
                f"all processes), or fewer processes")
        mine = self.share(blocks)
        return range(mine.start * BLOCK_DPUS, min(mine.stop * BLOCK_DPUS, nr_dpus))

    def sum_in_order(self, partials: np.ndarray) -> np.ndarray:
        """The sum over all processes' blocks, left to right, on every process.

        ``partials``: this process's per-block partial sums, shape ``(its blocks, ...)``,
        in global block order (a process's blocks follow those of lower ranks). Every
        process gets the same array, bit for bit what :func:`sum_in_order` of all
        blocks, concatenated in rank order, gives in one process (any dtype; integer
        sums wrap at the dtype's range, so pass int64 for int32 data).

        Raises:
            ArgumentValueError: ``partials`` has no block axis, or the processes'
                partials differ in shape (past the block axis) or dtype.
        """
        p = np.ascontiguousarray(partials)
        if p.ndim < 1:
            raise ArgumentValueError(f"partials must have shape (blocks, ...), not {p.shape}")
        if self.comm is None:
            return sum_in_order(p)
        start = time.perf_counter()
        try:
            pieces = self.comm.allgather(p)
        finally:
            self.seconds += time.perf_counter() - start
        for r, piece in enumerate(pieces):
            if piece.shape[1:] != p.shape[1:] or piece.dtype != p.dtype:
                raise ArgumentValueError(
                    f"process {r} passed partials of shape {piece.shape} and dtype "
                    f"{piece.dtype}; process {self.rank} passed {p.shape} {p.dtype}: every "
                    f"process must pass (its blocks, ...) of the same shape and dtype")
        return sum_in_order(np.concatenate(pieces, axis=0))

    def allgather(self, value: Any) -> list[Any]:
        """Every process's ``value`` (any picklable object), in rank order."""
        if self.comm is None:
            return [value]
        start = time.perf_counter()
        try:
            return list(self.comm.allgather(value))
        finally:
            self.seconds += time.perf_counter() - start

    def bcast(self, value: Any, root: int = 0) -> Any:
        """Process ``root``'s ``value`` (any picklable object), on every process."""
        if self.comm is None:
            return value
        start = time.perf_counter()
        try:
            return self.comm.bcast(value, root=root)
        finally:
            self.seconds += time.perf_counter() - start

    def barrier(self) -> None:
        """Wait until every process has reached this call."""
        if self.comm is None:
            return
        start = time.perf_counter()
        try:
            self.comm.Barrier()
        finally:
            self.seconds += time.perf_counter() - start


#: How long a process that reports an error waits before it stops the cluster.
OUTPUT_DRAIN_SECONDS = 1.0
#: How long the processes that met a usage error wait for all the others to meet it too.
AGREEMENT_SECONDS = 30.0


def run_command(cluster: Cluster, work: Callable[[], int], command: str,
                expected: tuple[type[BaseException], ...] = (ValueError, OSError)) -> int:
    """Runs a command line's ``work`` on one process of ``cluster`` and returns its exit
    status: only process 0 prints (the others' standard output goes to the null device),
    and an error on any process stops them all, since the others would wait for it
    forever.

    An ``expected`` error (bad input or options, which every process meets alike) is
    reported once, by process 0, with ``"{command}: error: ..."``. When every process has
    met it (a non-blocking barrier, waited for up to :data:`AGREEMENT_SECONDS`), they all
    exit with status 2 through ``MPI_Finalize``, which leaves nothing behind; a process
    still elsewhere after that wait is stopped with ``MPI_Abort(2)`` (MPICH then leaves its
    shared memory in ``/dev/shm``). Any other error is reported by the process it happened
    on, which stops them all with ``MPI_Abort(1)``. With one process, ``work()`` runs as
    it is."""
    if cluster.size == 1:
        return work()
    if not cluster.is_root:
        silence_stdout()
    try:
        return work()
    except expected as error:
        message = str(error).replace("\n", " ")
        if cluster.is_root:
            print(f"{command}: error: {message}", file=sys.stderr, flush=True)
        if _all_arrive(cluster, AGREEMENT_SECONDS):
            raise SystemExit(2) from None
        if not cluster.is_root:  # process 0 may never have seen it: say it here
            print(f"{command} (process {cluster.rank}): error: {message}", file=sys.stderr,
                  flush=True)
        # Abort tears the processes down at once, and mpiexec may then drop what it has
        # not yet forwarded of their output: give it the message first.
        time.sleep(OUTPUT_DRAIN_SECONDS)
        cluster.comm.Abort(2)
        raise
    except BaseException as error:
        print(f"{command} (process {cluster.rank}): error: {error}", file=sys.stderr,
              flush=True)
        time.sleep(OUTPUT_DRAIN_SECONDS)
        cluster.comm.Abort(1)
        raise


def _all_arrive(cluster: Cluster, seconds: float) -> bool:
    """Whether every process of ``cluster`` reaches this call within ``seconds``."""
    request = cluster.comm.Ibarrier()
    deadline = time.monotonic() + seconds
    while not request.Test():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def silence_stdout() -> None:
    """Send this process's standard output to the null device (the processes of a cluster
    other than 0, and a closed pipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # not a real file (a test's capture): nothing to do
        pass
