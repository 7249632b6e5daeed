"""Training linear models on DPUs with GA-SGD, MA-SGD and ADMM, through pyupmem.

:class:`Trainer` runs ``dpu_programs/pimopt/linear.c`` (:mod:`pimopt.kernel`) on
``nr_dpus`` DPUs; the algorithms and the host's rules are those of
:mod:`pimopt.algorithms`, and the model equals that of
:func:`pimopt.reference.train_reference` bit for bit.

One run (:meth:`Trainer.train`) follows the training skeleton :mod:`pyupmem.apps.training`
shares with :mod:`rl` (setup, phases, settings sent when they change, the fixed-order
combine across DPUs and servers); this module supplies the program, the memory plan, the
launches and the host's update:

1. *Setup* (not a phase): build the program variant, allocate and load the DPUs.
2. *CPU-DPU*: each DPU's contiguous share of the samples and labels, in the program's
   order (:func:`pimopt.kernel.sample_order`), and the settings.
3. For every launch (:func:`pimopt.algorithms.launches`): *CPU-DPU* the settings that
   change (the learning rate, the first step ...); *DPU kernel* the launch; *Inter-DPU*
   gather OUT from every DPU, :func:`~pyupmem.apps.training.combine` it, the host's update and
   the broadcast of the model (GA-SGD, MA-SGD) or of ``z`` (ADMM) for the next launch.
4. *DPU-CPU*: nothing more is left on the DPUs (the last Inter-DPU phase gathered the
   outputs); the phase records reading the DPUs' final settings as a check.

The host combines the DPUs' outputs only through :func:`~pyupmem.apps.training.combine` (a
fixed order, so that a run across several servers can give the same sums; ``combine``,
``block_sums`` and ``RANK_DPUS``, imported here, are :mod:`pyupmem.apps.training`'s).

**Several servers** (``cluster``, a :class:`pyupmem.apps.distributed.Cluster` of several
processes, e.g. under ``mpirun``): ``nr_dpus`` is the total over all processes. Each
process drives its share of the DPUs (:meth:`~pyupmem.apps.distributed.Cluster.dpu_share`:
whole blocks of :data:`~pyupmem.apps.training.RANK_DPUS`) and gives them exactly the
samples, labels and settings one process would give those DPUs. At every combine it sums
its own blocks (:func:`~pyupmem.apps.training.block_sums`) and
:meth:`~pyupmem.apps.distributed.Cluster.sum_in_order` adds all the cluster's blocks left to
right, which is :func:`~pyupmem.apps.training.combine` of all DPUs' outputs bit for bit;
every process then makes the same host update, so every process holds the model one
process with all ``nr_dpus`` DPUs computes, in FP32 and in INT32. The time spent in the
collective call is the *Inter-server* phase (:data:`pyupmem.estimate.phases.INTER_SERVER`), taken
out of *Inter-DPU*; :attr:`TrainResult.network_bytes` counts the bytes of block partials
that cross the network.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import pyupmem
from pyupmem.apps.distributed import Cluster
from pyupmem.apps.training import RANK_DPUS, TrainingRun, block_sums, combine, per_dpu
from pyupmem.apps.training import breakdown as phase_breakdown

from . import algorithms as alg
from . import fixed_point as fx
from . import kernel
from .data import DataSet

__all__ = ["RANK_DPUS", "TrainResult", "Trainer", "block_sums", "combine"]


@dataclass(frozen=True, eq=False)
class TrainResult:
    """A DPU training run: the model, the per-epoch models and the timing."""

    config: alg.Config  #: the settings
    raw: np.ndarray  #: the model as the DPUs hold it (float32 or Q15.16 int32), padded
    weights: np.ndarray  #: the model in float64, ``(F,)``
    history: list[np.ndarray] = field(default_factory=list, repr=False)
    """The float64 model after each epoch."""
    timer: pyupmem.PhaseTimer | None = field(default=None, repr=False)
    """The four-phase breakdown, with hardware estimates."""
    bytes_to_dpus: int = 0  #: bytes sent to the DPUs during training (after the data)
    bytes_from_dpus: int = 0  #: bytes read from the DPUs during training
    data_bytes: int = 0  #: bytes of the samples and labels sent once
    syncs: int = 0  #: launches, each followed by one combine
    wram: bool = True  #: whether the vectors lived in WRAM
    setup_seconds: float = 0.0  #: building, allocating and loading
    steps: int = 0  #: mini-batch steps of the run (every DPU's, counted once)
    processes: int = 1  #: MPI processes (servers) of the run
    blocks: int = 1  #: blocks of :data:`~pyupmem.apps.training.RANK_DPUS` DPUs summed first
    partial_bytes: int = 0
    """Bytes of one block's partial sum (the model size: float32 or int64 per value)."""
    network_bytes: int = 0
    """Bytes of block partials that crossed the network during training, all processes'
    receptions together: at each combine every process receives every other process's
    block partials, ``(processes - 1) * blocks * partial_bytes``; 0 on one server."""

    def bytes_per_sync(self) -> dict[str, float]:
        """Bytes communicated per sync (per launch) each way."""
        n = max(self.syncs, 1)
        return {"to_dpus": self.bytes_to_dpus / n, "from_dpus": self.bytes_from_dpus / n}

    def network(self) -> dict[str, float]:
        """The bytes that cross the network between servers: ``per_sync`` (each combine),
        ``per_step`` (averaged over the mini-batch steps: GA-SGD combines every step,
        MA-SGD and ADMM every ``local_steps``), ``total``, with ``processes``,
        ``blocks`` and ``partial_bytes``."""
        return {"processes": self.processes, "blocks": self.blocks,
                "partial_bytes": self.partial_bytes,
                "per_sync": self.network_bytes / max(self.syncs, 1),
                "per_step": self.network_bytes / max(self.steps, 1),
                "total": self.network_bytes}

    def breakdown(self) -> dict[str, dict[str, float]]:
        """``{phase: {"seconds": ..., "estimated_seconds": ...}}`` of the run
        (:func:`pyupmem.apps.training.breakdown`)."""
        return phase_breakdown(self.timer)


class Trainer:
    """Trains a linear model on DPUs.

    Args:
        model: ``"lr"`` or ``"svm"``.
        algorithm: ``"ga-sgd"``, ``"ma-sgd"`` or ``"admm"``.
        fmt: ``"fp32"`` or ``"int32"`` (:mod:`pimopt.fixed_point`).
        nr_dpus: DPUs (at least 1).
        nr_tasklets: tasklets per DPU (1 to 24).
        epochs: passes over the data.
        batch: samples per DPU per step.
        lr: initial learning rate (below 1 for INT32).
        schedule: one of :data:`pimopt.algorithms.SCHEDULES`.
        lam: L2 strength (below 1 for INT32).
        rho: ADMM's penalty (below 1 for INT32).
        local_steps: MA-SGD and ADMM: local steps per launch (0: one epoch).
        progress: show a progress bar (on process 0 only under a cluster).
        backend: the pyupmem backend, or None for pyupmem's default.
        cluster: the processes of a run on several servers
            (:class:`pyupmem.apps.distributed.Cluster`; the module docstring); None or a
            single process: this process drives all ``nr_dpus`` DPUs. Every process of
            the cluster must train on the same data with the same settings.

    Raises:
        ValueError: a bad setting, named with its valid range.
        pyupmem.ArgumentValueError: too few DPUs for the cluster's processes (each needs
            a block).
    """

    def __init__(self, model: str = "lr", algorithm: str = "ga-sgd", fmt: str = "fp32",
                 nr_dpus: int = 4, nr_tasklets: int = 8, epochs: int = 10, batch: int = 32,
                 lr: float = 0.1, schedule: str = "constant", lam: float = 1e-4,
                 rho: float = 0.1, local_steps: int = 8, *, progress: bool = False,
                 backend: pyupmem.Backend | str | None = None,
                 cluster: Cluster | None = None):
        self.config: alg.Config = alg.make_config(
            model=model, algorithm=algorithm, fmt=fmt, n_dpus=int(nr_dpus),
            n_tasklets=int(nr_tasklets), epochs=int(epochs), batch=int(batch), lr=float(lr),
            schedule=schedule, lam=float(lam), rho=float(rho), local_steps=int(local_steps))
        """The validated settings."""
        self.progress = progress  #: whether :meth:`train` shows a progress bar
        self.backend = backend  #: the pyupmem backend, or None
        self.cluster = cluster  #: the processes of a run on several servers, or None
        if cluster is not None:
            cluster.dpu_share(self.config.n_dpus)  # fewer blocks than processes: now

    def train(self, data: DataSet) -> TrainResult:
        """Train on ``data`` and return the model, its history and the breakdown.

        Raises:
            ValueError: the data do not fit the DPUs.
            pyupmem.PyUpmemError: the DPUs could not be allocated or a DPU faulted.
        """
        from .reference import raw_features, to_float

        c = self.config
        p = kernel.plan(len(data), data.n_features, c.n_dpus, c.n_tasklets)
        n_d, f = c.n_dpus, data.n_features
        fp32 = c.fmt == "fp32"
        dtype = np.float32 if fp32 else np.int32
        x = raw_features(c.fmt, data.x, p.padded)
        y = data.labels(c.model)
        n_steps = alg.steps_per_epoch(p.max_share, c.batch)
        plan_launches = alg.launches(c, n_steps)
        table = fx.sigmoid_table_f32() if fp32 else fx.sigmoid_table_q16()
        table = np.append(table, table[-1])  # the program's SIG_POINTS + 1 values
        heap = pyupmem.DPU_MRAM_HEAP_POINTER_NAME
        model = np.zeros(p.padded, dtype=dtype)
        history: list[np.ndarray] = []
        to_bytes = from_bytes = 0
        mode = alg.MODES[c.algorithm]
        # GA-SGD: the samples of each step over all DPUs (counted once, not at every step)
        cnts = np.array([cnt for _, cnt in p.shares], dtype=np.int64)
        step_sizes = [int(np.clip(cnts - k * c.batch, 0, c.batch).sum())
                      for k in range(n_steps)] if mode == 0 else []
        run = TrainingRun(
            kernel.kernel_source(), name="pimopt_linear", nr_dpus=n_d,
            nr_tasklets=c.n_tasklets, defines=kernel.kernel_defines(c.model, c.fmt),
            extra_args=["-ffp-contract=off"],
            mram_needed=p.mram_needed, backend=self.backend, cluster=self.cluster,
            progress=self.progress, total=c.epochs,
            desc=f"{c.algorithm} {c.model}/{c.fmt} on {n_d} DPUs")
        my_shares = run.mine(p.shares)
        # this process's DPUs' shares, each in the program's order (kernel.sample_order)
        order = np.concatenate([start + kernel.sample_order(cnt, c.batch, c.n_tasklets)
                                for start, cnt in my_shares]).astype(np.intp)
        first = my_shares[0][0]
        ordered = [(start - first, cnt) for start, cnt in my_shares]  # shares are contiguous
        samples = per_dpu(x[order], ordered, max(p.max_share, 1))
        labels = per_dpu(y.astype(np.int32, copy=False)[order], ordered,
                         p.max_share + (p.max_share & 1))
        counts = np.array([cnt for _, cnt in my_shares], dtype=np.uint32).reshape(-1, 1)
        with run:
            dpus = run.dpus
            run.send({"n_features": p.padded, "mode": mode, "batch": c.batch,
                      "use_wram": int(p.use_wram), "labels_offset": p.labels_offset,
                      "vectors_offset": p.vectors_offset, "update_u": 0})
            with run.phase(pyupmem.CPU_DPU):
                dpus.broadcast("sigmoid_table", table)
                dpus.scatter("n_samples", counts)
                dpus.scatter(heap, samples)
                dpus.scatter(heap, labels, offset=p.labels_offset)
                zero = np.zeros(p.padded, dtype=dtype)
                for v in range(3):  # W, Z, U
                    dpus.broadcast(heap, zero, offset=p.vector_offset(v))
            data_bytes = (samples.nbytes + labels.nbytes) // max(run.count, 1) * n_d
            for i, (epoch, k, n) in enumerate(plan_launches):
                lr = c.lr_at(epoch)
                run.send({**alg.coefficients(c, lr), "first_step": k, "nr_steps": n,
                          "update_u": int(i >= 1 and mode == 2)})
                run.launch()
                with run.combining():
                    outs = dpus.gather(heap, dtype, p.padded, offset=p.vector_offset(3))
                    from_bytes += outs.nbytes // run.count * n_d  # all servers' DPUs
                    total = run.sum_in_order(outs)
                    if mode == 0:
                        size = step_sizes[k]
                        if size:
                            model = alg.sgd_update(c.fmt, model, total, size, lr, c.lam)
                    else:
                        model = alg.mean_of_sum(c.fmt, total, n_d)
                    if i + 1 < len(plan_launches):
                        # ADMM sends z; GA-SGD and MA-SGD the model every DPU continues
                        target = 1 if mode == 2 else 0
                        dpus.broadcast(heap, model, offset=p.vector_offset(target))
                        to_bytes += model.nbytes * n_d
                if k + n == n_steps:
                    history.append(to_float(c.fmt, model)[:f])
                    run.progress(1)
            with run.phase(pyupmem.DPU_CPU):
                done = dpus.gather("n_samples", np.uint32, 1)
            if not np.array_equal(done.reshape(-1), counts.reshape(-1)):
                raise RuntimeError("the DPUs' sample counts changed during training: "
                                   "this is a bug, please report it")
        return TrainResult(c, model, to_float(c.fmt, model)[:f], history, run.timer, to_bytes,
                           from_bytes, data_bytes, len(plan_launches), p.use_wram,
                           run.setup_seconds, steps=c.epochs * n_steps,
                           processes=run.processes, blocks=run.blocks,
                           partial_bytes=p.padded * (4 if fp32 else 8),
                           network_bytes=run.network_bytes)
