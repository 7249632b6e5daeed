"""The training skeleton on DPUs that :mod:`rl` and :mod:`pimopt` share.

An application that trains a model on DPUs supplies its DPU program, its memory plan,
the data each DPU gets, its launch schedule, its update and combine rules and its
evaluation. This module does the rest, once for every application:

* **Partition** the data over DPUs: :func:`contiguous_shares` (each DPU a contiguous
  share, the first ``n % D`` one item more) and :func:`per_dpu` (the shares of this
  process's DPUs as one array, padded to the longest, ready to scatter).
* **Plan the memory**: :data:`WRAM_BYTES`, :data:`MRAM_BYTES`, :data:`STACK_BYTES`, and
  at setup the check of the plan's MRAM against what the loaded program leaves.
* **Set up and time** (:class:`TrainingRun`, a context manager): build the program
  variant (cached), allocate this process's DPUs (all of them, or under a
  :class:`~pyupmem.apps.distributed.Cluster` its share of whole blocks), load, check, time
  the setup; then one repetition of a :class:`~pyupmem.estimate.phases.PhaseTimer` with the DPUs'
  hardware estimates, so that every call below lands in its phase.
* **Schedule launches**: :meth:`TrainingRun.send` broadcasts the program's uint32
  settings in *CPU-DPU*, only those that changed since they were last sent (a launch
  schedule then states each launch's settings in full, and the DPUs receive only the
  differences); :meth:`TrainingRun.launch` is *DPU kernel*.
* **Combine** on the host and across servers: :meth:`TrainingRun.combining` is
  *Inter-DPU*, with the time spent in the cluster's collective calls moved to
  *Inter-server* (:data:`pyupmem.estimate.phases.INTER_SERVER`; the network is real, not
  modelled, so its estimate is the measured time); :meth:`TrainingRun.sum_in_order` sums
  per-DPU results in the fixed order of :func:`combine` over all servers' DPUs and
  counts the bytes that cross the network.
* **The breakdown**: :func:`breakdown`, the seconds and hardware estimate per phase.

The fixed order: per-DPU results are summed first within each block of
:data:`RANK_DPUS` consecutive DPUs (one hardware rank), left to right, then the blocks'
sums left to right (:func:`pyupmem.apps.distributed.sum_in_order`), which is the order a
cluster of several processes follows, so ``K`` processes give what one process with the
same DPUs gives, bit for bit.

A sketch of a trainer::

    shares = contiguous_shares(len(data), nr_dpus)
    with TrainingRun(source, name="mine", nr_dpus=nr_dpus, nr_tasklets=16,
                     mram_needed=plan_bytes, cluster=cluster) as run:
        with run.phase(pyupmem.CPU_DPU):
            run.dpus.scatter(heap, per_dpu(data, run.mine(shares)))
        for epochs in schedule:
            run.send({"epochs": epochs})
            run.launch()
            with run.combining():
                total = run.sum_in_order(run.dpus.gather("out", np.float32, n))
                ...  # the application's update, and the broadcast of the model
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

import numpy as np
from tqdm.auto import tqdm

from pyupmem.apps.distributed import BLOCK_DPUS, Cluster, sum_in_order
from pyupmem.build.builder import build_program, packaged_program
from pyupmem.dpus.dpuset import DpuSet
from pyupmem.driver.backend import Backend
from pyupmem.driver.libdpu import DPU_MRAM_HEAP_POINTER_NAME
from pyupmem.estimate.phases import CPU_DPU, DPU_KERNEL, INTER_DPU, INTER_SERVER, PhaseTimer

WRAM_BYTES = 64 * 1024
"""WRAM of one DPU."""
MRAM_BYTES = 64 * 1024 * 1024
"""MRAM of one DPU."""
STACK_BYTES = 1024
"""Stack of each tasklet (the runtime's default)."""
RANK_DPUS = BLOCK_DPUS
"""DPUs of one hardware rank: :func:`combine` first sums each block of this many DPUs."""

Shares = Sequence[tuple[int, int]]
"""``(start, count)`` of each DPU's contiguous share, in DPU order."""


def include_dir() -> Path:
    """The folder of the DPU headers that applications' programs share (``#include
    "fixed_point.h"``: the INT32 fixed-point helpers): the package data
    ``pyupmem/dpu_programs/`` of an installed wheel, else ``dpu_programs/common/`` of the
    source tree (:func:`pyupmem.build.builder.packaged_program`). :class:`TrainingRun` puts it on
    every build's include path.

    Raises:
        FileNotFoundError: neither exists (a broken installation); reinstall pyupmem.
    """
    return packaged_program("pyupmem", "common", "fixed_point.h").parent


def contiguous_shares(n: int, n_dpus: int) -> tuple[tuple[int, int], ...]:
    """``(start, count)`` of each of ``n_dpus`` DPUs' contiguous share of ``n`` items: the
    first ``n % n_dpus`` DPUs take one item more (10 over 4: 3, 3, 2, 2).

    Raises:
        ValueError: ``n`` is negative or ``n_dpus`` below 1.
    """
    n, n_dpus = int(n), int(n_dpus)
    if n < 0 or n_dpus < 1:
        raise ValueError(f"cannot share {n} items over {n_dpus} DPUs: need n >= 0, DPUs >= 1")
    base, extra = divmod(n, n_dpus)
    return tuple((d * base + min(d, extra), base + (d < extra)) for d in range(n_dpus))


def per_dpu(rows: np.ndarray, shares: Shares, length: int | None = None) -> np.ndarray:
    """The rows of each DPU's share as one array ``(len(shares), length, *rows.shape[1:])``
    of ``rows``' dtype, each DPU's rows first and zeros after (``length``: at least the
    longest share; default that share, at least 1), as :meth:`pyupmem.DpuSet.scatter`
    sends it (one equal-sized piece per DPU)."""
    longest = max((count for _, count in shares), default=0)
    length = max(longest, 1) if length is None else int(length)
    if length < longest:
        raise ValueError(f"length={length} is shorter than the longest share ({longest})")
    out = np.zeros((len(shares), length, *rows.shape[1:]), dtype=rows.dtype)
    for d, (start, count) in enumerate(shares):
        out[d, :count] = rows[start:start + count]
    return out


def block_sums(partials: np.ndarray) -> np.ndarray:
    """The sum of each block of :data:`RANK_DPUS` consecutive DPUs' results ``partials``
    (shape ``(nr_dpus, ...)``; the last block may be short), left to right within the
    block: shape ``(blocks, ...)``, float32 for float arrays (each sum starts from its
    first term), int64 (exact) for integer ones. The first step of :func:`combine`.

    Raises:
        ValueError: ``partials`` holds no DPU's result.
    """
    p = np.asarray(partials)
    if p.ndim < 1 or p.shape[0] == 0:
        raise ValueError("combine needs at least one DPU's result")
    if np.issubdtype(p.dtype, np.floating):
        f = np.float32
        return np.stack([np.cumsum(p[i:i + RANK_DPUS], axis=0, dtype=f)[-1]
                         for i in range(0, p.shape[0], RANK_DPUS)])
    return np.stack([p[i:i + RANK_DPUS].astype(np.int64).sum(axis=0)
                     for i in range(0, p.shape[0], RANK_DPUS)])


def combine(partials: np.ndarray) -> np.ndarray:
    """The sum of per-DPU results ``partials`` (shape ``(nr_dpus, ...)``) in a fixed order:
    first the sum of each block of :data:`RANK_DPUS` consecutive DPUs (one hardware
    rank), left to right (:func:`block_sums`), then the blocks' sums, left to right
    (:func:`pyupmem.apps.distributed.sum_in_order`, the order a
    :class:`~pyupmem.apps.distributed.Cluster` follows across servers).

    Float arrays are summed in float32 (each sum starts from its first term), integer
    arrays exactly in int64.

    Raises:
        ValueError: ``partials`` holds no DPU's result.
    """
    return sum_in_order(block_sums(partials))


def breakdown(timer: PhaseTimer | None) -> dict[str, dict[str, float]]:
    """``{phase: {"seconds": ..., "estimated_seconds": ...}}`` of a run's ``timer`` (its
    recorded phases in order; the estimate is NaN where the timer has none); empty for
    None."""
    out: dict[str, dict[str, float]] = {}
    if timer is None:
        return out
    for name in timer.phases():
        est = timer.estimates(name)
        out[name] = {"seconds": float(sum(timer.samples(name))),
                     "estimated_seconds": float(sum(est)) if est else float("nan")}
    return out


class TrainingRun:
    """One training run on DPUs: the setup, the timed phases, the fixed-order combine.

    Entering it builds the program, allocates this process's DPUs, loads the program and
    checks that the plan's MRAM fits; inside, every call records its phase in
    :attr:`timer` (one repetition: the whole run); leaving it frees the DPUs and closes
    the progress bar. The module docstring shows a trainer.

    Args:
        source: the DPU program's source (a path, as :func:`pyupmem.build_program` takes).
        name: the binary's name in the build cache.
        nr_dpus: the run's DPUs, over all processes of ``cluster``.
        nr_tasklets: tasklets per DPU.
        defines: the program variant's ``-D`` defines.
        extra_args: further compiler arguments.
        include_dirs: extra ``-I`` folders; :func:`include_dir` (the shared DPU headers)
            is always one.
        mram_needed: bytes of MRAM one DPU needs (the application's memory plan), checked
            against what the loaded program leaves from ``DPU_MRAM_HEAP_POINTER``.
        needs: what needs that MRAM, for the error message (``"the data"``).
        advice: what to change when it does not fit, for the error message.
        backend: the pyupmem backend, or None for pyupmem's default.
        cluster: the processes of a run on several servers; None or a single process:
            this process drives all ``nr_dpus`` DPUs.
        progress: show a progress bar of ``total`` ``unit`` (on process 0 only).
        total: the progress bar's total.
        unit: the progress bar's unit.
        desc: the progress bar's description (``{dpus}`` in it: this process's DPUs).

    Raises:
        pyupmem.ArgumentValueError: fewer blocks of :data:`RANK_DPUS` DPUs than the
            cluster's processes (at construction).
        ValueError: (on entering) the plan's MRAM does not fit.
        pyupmem.PyUpmemError: (on entering) the build, allocation or load failed.
    """

    def __init__(self, source: str | Path, *, name: str, nr_dpus: int, nr_tasklets: int,
                 defines: Mapping[str, object] | None = None, extra_args: Sequence[str] = (),
                 include_dirs: Sequence[str | Path] = (), mram_needed: int = 0,
                 needs: str = "the data", advice: str = "use more DPUs",
                 backend: Backend | str | None = None, cluster: Cluster | None = None,
                 progress: bool = False, total: int = 0, unit: str = "epoch",
                 desc: str = ""):
        self.cluster: Cluster | None = cluster if cluster is not None and cluster.size > 1 \
            else None
        """The cluster of several processes, or None for one process."""
        self.nr_dpus = int(nr_dpus)  #: the run's DPUs over all processes
        #: this process's DPUs among them (whole blocks under a cluster)
        self.dpu_range: range = (self.cluster.dpu_share(self.nr_dpus)
                                 if self.cluster is not None else range(self.nr_dpus))
        self.blocks = -(-self.nr_dpus // RANK_DPUS)  #: blocks of the fixed order, in all
        self.network_bytes = 0
        """Bytes of block partials that crossed the network in :meth:`sum_in_order`, all
        processes' receptions together: ``(processes - 1) * blocks * block bytes`` per
        call; 0 on one server."""
        self.setup_seconds = 0.0  #: building, allocating, loading and checking
        self._source, self._name, self._tasklets = source, name, int(nr_tasklets)
        self._defines, self._extra, self._include = dict(defines or {}), extra_args, include_dirs
        self._mram, self._needs, self._advice = int(mram_needed), needs, advice
        self._backend = backend
        self._bar_args = dict(total=total, unit=unit, leave=False,
                              desc=desc.replace("{dpus}", str(self.count)),
                              disable=not (progress and self.is_root))
        self._sent: dict[str, int] = {}
        self._repetition: Iterator[int] | None = None
        self.dpus: DpuSet
        """This process's DPUs (inside the ``with``)."""
        self.timer: PhaseTimer
        """The run's phases with hardware estimates (one repetition)."""

    @property
    def first(self) -> int:
        """The first of this process's DPUs (0 on one process)."""
        return self.dpu_range.start

    @property
    def count(self) -> int:
        """How many DPUs this process drives."""
        return len(self.dpu_range)

    @property
    def processes(self) -> int:
        """The processes (servers) of the run."""
        return 1 if self.cluster is None else self.cluster.size

    @property
    def is_root(self) -> bool:
        """Whether this process prints (process 0, or the only one)."""
        return self.cluster is None or self.cluster.is_root

    def mine(self, items: Sequence) -> Sequence:
        """The entries of ``items`` (one per DPU of the run, in DPU order) that belong to
        this process's DPUs."""
        return items[self.dpu_range.start:self.dpu_range.stop]

    # ------------------------------------------------------------------ setup

    def __enter__(self) -> TrainingRun:
        start = time.perf_counter()
        program = build_program(self._source, nr_tasklets=self._tasklets, name=self._name,
                                defines=self._defines, extra_args=self._extra,
                                include_dirs=[include_dir(), *self._include],
                                backend=self._backend)
        self.dpus = DpuSet(self.count, backend=self._backend)
        try:
            self.dpus.load(program)
            mram = self.dpus.symbol(DPU_MRAM_HEAP_POINTER_NAME).size
            if self._mram > mram:
                raise ValueError(
                    f"{self._needs} need {self._mram / 2**20:.1f} MiB of MRAM, but the program "
                    f"leaves {mram / 2**20:.1f} MiB; {self._advice}")
        except BaseException:
            self.dpus.free()
            raise
        self.bar = tqdm(**self._bar_args)
        self.setup_seconds = time.perf_counter() - start
        self.timer = PhaseTimer(warmup=0, dpus=self.dpus)
        self._repetition = self.timer.repetitions(1)
        next(self._repetition)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        repetition, self._repetition = self._repetition, None
        try:
            if repetition is not None:
                if kind is None:
                    next(repetition, None)  # records the repetition
                else:
                    repetition.close()
        finally:
            self.dpus.free()
            self.bar.close()

    # ------------------------------------------------------------------ phases

    def phase(self, name: str):
        """The ``with`` block as part of phase ``name`` (:meth:`pyupmem.PhaseTimer.phase`)."""
        return self.timer.phase(name)

    def send(self, settings: Mapping[str, int]) -> None:
        """Broadcast each uint32 ``settings`` value that differs from what was last sent
        under its name (all of them the first time), in *CPU-DPU*; nothing, and no phase,
        when none changed."""
        changed = [(k, int(v)) for k, v in settings.items() if self._sent.get(k) != int(v)]
        if not changed:
            return
        with self.timer.phase(CPU_DPU):
            for name, value in changed:
                self.dpus.broadcast(name, np.uint32(value))
                self._sent[name] = value

    def launch(self) -> None:
        """One synchronous launch of every DPU, in *DPU kernel*."""
        with self.timer.phase(DPU_KERNEL):
            self.dpus.launch()

    @contextmanager
    def combining(self) -> Iterator[None]:
        """The ``with`` block as *Inter-DPU*, less the time spent in the cluster's
        collective calls meanwhile, which goes to *Inter-server* (its estimate the same
        measured time: the network is not modelled)."""
        before = self.cluster.seconds if self.cluster is not None else 0.0
        with self.timer.phase(INTER_DPU):
            yield
        if self.cluster is not None:
            talk = self.cluster.seconds - before
            self.timer.add(INTER_DPU, -talk)
            self.timer.add(INTER_SERVER, talk)
            self.timer.add_estimate(INTER_SERVER, talk)

    def sum_in_order(self, partials: np.ndarray) -> np.ndarray:
        """The sum of every DPU's result over the whole run, all servers' DPUs, in the
        fixed order of :func:`combine`: ``partials`` ``(this process's DPUs, ...)``, each
        process passing its own; every process gets the same bits. Counts
        :attr:`network_bytes`."""
        if self.cluster is None:
            return combine(partials)
        mine = block_sums(partials)
        total = self.cluster.sum_in_order(mine)
        self.network_bytes += (self.cluster.size - 1) * self.blocks * mine[0].nbytes
        return total

    def progress(self, n: int = 1) -> None:
        """Advance the progress bar by ``n``."""
        self.bar.update(n)
