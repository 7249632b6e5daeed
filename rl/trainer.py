"""Training tabular Q-learning and SARSA on DPUs, through pyupmem.

:class:`Trainer` runs the DPU program ``dpu_programs/rl/learner.c`` on ``nr_dpus`` DPUs
(real ones, the SDK's simulator, or pyupmem's emulator, whichever backend pyupmem
finds). Every tasklet of every DPU is an independent learner; the host combines their
tables with :func:`rl.combine.combine`. The tables it returns equal those of the
pure-Python reference :func:`rl.reference.train_reference` bit for bit for the same
dataset and settings (its module docstring specifies the update, the layouts, the
generator and the sync schedule).

One run (:meth:`Trainer.train`) follows the training skeleton :mod:`pyupmem.apps.training`
shares with :mod:`pimopt` (setup, phases, settings sent when they change, the
Inter-server phase); this module supplies the program, the memory plan, the launch
schedule and the combine rule:

1. *Setup* (not one of the four phases): build the program variant
   (:func:`pyupmem.build_program`, cached), allocate the DPUs and load it.
2. *CPU-DPU*: send the settings, each learner's generator seed, each DPU's contiguous
   share of the records (:mod:`rl.kernel` describes them) and zero tables.
3. Repeatedly, ``sync_every`` epochs at a time (all epochs at once when ``sync_every``
   is 0): *DPU kernel*, one launch; then, unless it was the last launch,
   *Inter-DPU*: gather every learner's table and counts, combine them on the host and
   broadcast the combined table (counts zeroed) back to every learner.
4. *DPU-CPU*: gather the tables, counts and generator states; the final combine is
   counted as *Inter-DPU*.

**Several servers** (``cluster``, a :class:`pyupmem.apps.distributed.Cluster` of several
processes, e.g. under ``mpirun``): ``nr_dpus`` is the total over all processes; each
process drives its share of the DPUs (:meth:`~pyupmem.apps.distributed.Cluster.dpu_share`:
whole blocks of 64) with the records and generator seeds one process would give those
DPUs, and every combine sums the learners' tables block by block over the cluster in a
fixed order, so that every process gets the table one process with all ``nr_dpus``
DPUs gets, bit for bit (FP32 and INT32, every combine rule). The time spent
communicating is the *Inter-server* phase (:data:`pyupmem.estimate.phases.INTER_SERVER`), taken
out of *Inter-DPU*.

The tables live in WRAM during a launch when every tasklet's table and counts fit
beside its buffers (:func:`rl.kernel.tables_fit_wram`), otherwise in MRAM.

**Why the defaults** (:data:`DEFAULTS`). They were chosen by measuring, on one million
transitions of a uniformly random behaviour policy (``python -m rl quality``; dataset
seed 0, 1,000 evaluation episodes), the greedy policy of the combined table against the
optimal policy of value iteration. With the defaults: FrozenLake 4x4 reaches 99.5% of
the optimal success rate, Taxi and CliffWalking the optimal mean return exactly, and the
INT32 and FP32 greedy policies agree on every state seen in the data (the same on
dataset seeds 1 and 2). Changing one setting at a time:

* ``combine="pooled"``: each of the 1,024 learners sees only 1/1,024 of the data, so
  a plain mean shrinks every step about 1,000-fold (and averages in the zeros of
  entries a learner never saw), and a count-weighted mean still moves only as far as
  one learner's share took it. ``"pooled"`` moves each entry as far as one learner
  making all the updates would (:mod:`rl.combine`; ``docs/explanation/rl_combining.md``
  has the measurements): on 100k Taxi transitions 100% of the optimal success rate
  against 63% with ``"weighted"`` and 0% with ``"mean"``.
* ``sync_every=1``: combining after every epoch lets value information flow between
  learners (each bootstraps from the team's estimate of the next state, not from its
  own sparse one). Combining only at the end (``0``) leaves Taxi at 44% of the optimal
  success rate. A sync costs one gather, combine and broadcast of the learners' tables
  (a few milliseconds).
* ``segments=0`` (auto): 2 combines per epoch when a learner's share of an epoch holds
  fewer than 4 transitions per table entry and fewer than 256 transitions
  (:func:`rl.reference.resolve_segments`), else 1. Learners that see only a few
  transitions between combines pass value information on one step per combine; with
  one combine per epoch 1,024 learners on 10k FrozenLake transitions (about 10 each)
  reached 95.1% of the optimal success rate
  where one learner reaches 100%, with 2 per epoch 99.1-100% in every layout. More
  is not better: with 4 per epoch some runs fell to 87-88% (the team then moves like
  one learner with a constant step, whose last few updates decide each value, and
  loses the noise averaging of combining learners that each made many updates). With
  large shares (1M transitions) each learner carries values across its own share, and
  more combines would only cost time (each is a launch, a gather and a broadcast): on
  1M Taxi transitions 1,024 learners reach the optimal return with one combine per
  epoch in every layout, and two took 1.6x as long.
* ``epochs=40``: value information moves back about one step per sync, and Taxi's
  optimal paths are up to ~20 steps long: 10 epochs reach 24% of Taxi's optimal
  success, 20 epochs 81%, 40 epochs 100%. (FrozenLake 8x8, not among the targets,
  needs more: 72% of optimal at 40 epochs, 98.5% at 100.)
* ``alpha=0.1``: larger steps converge in fewer epochs, but leave values noisier:
  with ``alpha=0.3`` CliffWalking's INT32 and FP32 greedy policies break its many
  near-ties differently and agree on only 84% of the states; with 0.1 they agree on all.
* ``gamma=0.99``: the optimal policy the evaluation compares with is computed with
  0.99; with 0.95 the learned FrozenLake policy is more myopic (97.7% of optimal
  instead of 99.5%). 0.99 is below 1, as INT32's Q0.15 coefficients require.
* ``algorithm="qlearning"``: the data come from a random policy, so off-policy
  Q-learning learns the optimal values; SARSA learns the values of its own
  epsilon-greedy choices instead.
* ``nr_dpus=64``, ``nr_tasklets=16``: 1,024 learners; enough tasklets to hide the DPU
  pipeline's latency (11 or more), and 64 DPUs run a million transitions per epoch in
  milliseconds on the emulator.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

import pyupmem
from pyupmem.apps.distributed import Cluster
from pyupmem.apps.training import TrainingRun, per_dpu

from . import fixed_point, kernel
from .combine import combine as combine_tables
from .combine import pooled_weights, step_alpha
from .datasets import Dataset
from .layouts import DEFAULT_CHUNK, dpu_shares, local_indices, permutation, split
from .reference import (
    Result,
    TrainConfig,
    eps_threshold,
    initial_rng_states,
    make_config,
    resolve_segments,
)

#: Trainer defaults (see the module docstring for why).
DEFAULTS: dict[str, object] = {
    "algorithm": "qlearning",
    "layout": "block",
    "fmt": "fp32",
    "nr_dpus": 64,
    "nr_tasklets": 16,
    "epochs": 40,
    "alpha": 0.1,
    "gamma": 0.99,
    "epsilon": 0.1,
    "sync_every": 1,
    "combine": "pooled",
    "seed": 0,
    "chunk": DEFAULT_CHUNK,
    "segments": 0,
}

#: Where the tables may be placed: chosen automatically, or forced.
TABLE_PLACEMENTS: tuple[str, ...] = ("auto", "wram", "mram")


@dataclass(frozen=True, eq=False)
class TrainResult(Result):
    """A DPU training run: everything :class:`rl.reference.Result` holds, plus timing.

    ``table``, ``tables``, ``counts`` and ``rng_states`` have the shapes and meaning of
    the reference's (``(S, A)``, ``(L, S, A)``, ``(L, S, A)``, ``(L,)``; learner
    ``l = d * nr_tasklets + t``).
    """

    timer: pyupmem.PhaseTimer | None = field(default=None, repr=False)
    """The four-phase breakdown (one repetition: the whole run)."""
    tables_in: str = "wram"  #: ``"wram"`` or ``"mram"``: where the tables were updated
    updates: int = 0  #: transitions the learners processed (``epochs * N``)
    seconds: float = 0.0  #: wall time of the four phases together
    setup_seconds: float = 0.0  #: building the program, allocating and loading the DPUs
    #: the first of this process's DPUs (0 but with a cluster of several processes, where
    #: ``tables``, ``counts`` and ``rng_states`` hold this process's learners only)
    first_dpu: int = 0

    @property
    def updates_per_second(self) -> float:
        """Updates per second of the whole run (the four phases, not the setup)."""
        return self.updates / self.seconds if self.seconds else 0.0

    def breakdown(self) -> str:
        """The four-phase time breakdown as a text table."""
        if self.timer is None:
            return "(no timing)"
        return self.timer.table(unit="ms", title="time per phase (one training run)")


def launch_schedule(
    epochs: int, sync_every: int, max_share: int, segments: int = 1
) -> Iterator[tuple[int, int, bool]]:
    """The launches of a run: ``(epochs in this launch, segment, combine after it)`` in order.

    Launches end at every sync point (every ``sync_every`` epochs, none after the last
    epoch), and are split further so that no tasklet makes more than
    :data:`rl.kernel.COUNTER_MAX` updates in one launch (its uint32 update counter never
    overflows, however many epochs a run has). With ``segments > 1`` (combines per
    epoch) every launch is one segment of one epoch, with a combine after each but the
    last; otherwise the segment is always 0.
    """
    if segments > 1:
        for epoch in range(epochs):
            for part in range(segments):
                yield 1, part, not (epoch == epochs - 1 and part == segments - 1)
        return
    limit = max(1, kernel.COUNTER_MAX // max(int(max_share), 1))
    period = sync_every or epochs
    done = 0
    while done < epochs:
        target = min(epochs, (done // period + 1) * period)
        while done < target:
            step = min(limit, target - done)
            done += step
            yield step, 0, done == target and done < epochs


class Trainer:
    """Trains a tabular learner from an offline dataset on DPUs.

    Args:
        algorithm: ``"qlearning"`` or ``"sarsa"``.
        layout: ``"block"``, ``"stride"`` or ``"random"`` (see :mod:`rl.layouts`).
        fmt: ``"fp32"`` (float on the DPU) or ``"int32"`` (Q15.16 fixed point, see
            :mod:`rl.fixed_point`).
        nr_dpus: DPUs to allocate (at least 1).
        nr_tasklets: tasklets per DPU, each an independent learner (1 to 24).
        epochs: passes over the data.
        alpha: learning rate, in [0, 1] (below 1 for INT32).
        gamma: discount, in [0, 1] (below 1 for INT32).
        epsilon: SARSA's exploration probability.
        sync_every: combine the tables and broadcast the result every this many epochs
            (0: only once, at the end).
        segments: combines per epoch (needs ``sync_every=1`` when above 1): every
            learner's share of an epoch is split into this many parts, with a combine
            after each; 0 (the default) picks 2 for learners whose shares are small
            (against the table, and under 256 transitions), else 1
            (:func:`rl.reference.resolve_segments`).
        combine: one of :data:`rl.combine.COMBINES` (see :mod:`rl.combine`).
        seed: seeds SARSA's generators and the random layout's permutation.
        chunk: transitions per chunk of the stride layout (1 to 128).
        tables: ``"auto"`` (WRAM when the tables fit, else MRAM), ``"wram"`` or
            ``"mram"``.
        progress: show a progress bar over the epochs.
        backend: the pyupmem backend (a :class:`pyupmem.Backend`, a name, or None for
            pyupmem's default choice).
        compact: the records' format on the DPUs: None (default) 8-byte records where
            the table allows (:func:`rl.kernel.compact_fits`), False the 16-byte ones.
        cluster: the processes of a run on several servers
            (:class:`pyupmem.apps.distributed.Cluster`); None or a single process: this
            process drives all ``nr_dpus`` DPUs. Every process of the cluster must call
            :meth:`train` with the same settings and dataset.

    The defaults are :data:`DEFAULTS`; the module docstring says why.

    Raises:
        ValueError: a bad setting, named with its valid range.
    """

    def __init__(
        self,
        algorithm: str = "qlearning",
        layout: str = "block",
        fmt: str = "fp32",
        nr_dpus: int = 64,
        nr_tasklets: int = 16,
        epochs: int = 40,
        alpha: float = 0.1,
        gamma: float = 0.99,
        epsilon: float = 0.1,
        sync_every: int = 1,
        combine: str = "pooled",
        seed: int = 0,
        chunk: int = DEFAULT_CHUNK,
        segments: int = 0,
        *,
        tables: str = "auto",
        progress: bool = True,
        backend: pyupmem.Backend | str | None = None,
        compact: bool | None = None,
        cluster: Cluster | None = None,
    ):
        if int(nr_dpus) < 1:
            raise ValueError(
                f"nr_dpus={nr_dpus}: training needs at least one DPU"
            )
        if not 1 <= int(nr_tasklets) <= kernel.MAX_TASKLETS:
            raise ValueError(
                f"nr_tasklets={nr_tasklets}: a DPU runs 1 to {kernel.MAX_TASKLETS} tasklets"
            )
        if not 1 <= int(chunk) <= kernel.MAX_CHUNK:
            raise ValueError(
                f"chunk={chunk}: a stride chunk holds 1 to {kernel.MAX_CHUNK} transitions "
                f"(one DMA of at most 2048 bytes)"
            )
        if tables not in TABLE_PLACEMENTS:
            raise ValueError(f"tables={tables!r}; choose one of {', '.join(TABLE_PLACEMENTS)}")
        self.config: TrainConfig = make_config(
            algorithm=algorithm, fmt=fmt, layout=layout, n_dpus=int(nr_dpus),
            n_tasklets=int(nr_tasklets), epochs=int(epochs), alpha=float(alpha),
            gamma=float(gamma), epsilon=float(epsilon), sync_every=int(sync_every),
            combine=combine, seed=int(seed), chunk=int(chunk), segments=int(segments),
        )
        """The validated settings (shared with the CPU reference and baseline)."""
        self.tables = tables  #: the table placement asked for
        self.progress = progress  #: whether :meth:`train` shows a progress bar
        self.backend = backend  #: the pyupmem backend, or None for the default
        #: 8-byte records (True), 16-byte (False), or where they fit (None)
        self.compact = compact
        self.cluster = cluster  #: the processes of a run on several servers, or None
        if cluster is not None:
            cluster.dpu_share(int(nr_dpus))  # fewer blocks than processes: an error now

    def __repr__(self) -> str:
        c = self.config
        return (
            f"Trainer(algorithm={c.algorithm!r}, layout={c.layout!r}, fmt={c.fmt!r}, "
            f"nr_dpus={c.n_dpus}, nr_tasklets={c.n_tasklets}, epochs={c.epochs}, "
            f"alpha={c.alpha}, gamma={c.gamma}, epsilon={c.epsilon}, "
            f"sync_every={c.sync_every}, combine={c.combine!r}, seed={c.seed}, "
            f"chunk={c.chunk}, segments={c.segments})"
        )

    # ------------------------------------------------------------------ planning

    def plan(self, dataset: Dataset) -> kernel.MemoryPlan:
        """Where the data and tables go on each DPU, checked against WRAM and MRAM.

        Raises:
            ValueError: the dataset does not fit its table, has too many actions, or the
                tables and data do not fit in a DPU's MRAM (the message says what to
                change).
        """
        c = self.config
        if len(dataset) == 0:
            raise ValueError("the dataset has no transitions: there is nothing to train on")
        try:
            dataset.validate()
        except ValueError as error:
            raise ValueError(f"the dataset does not fit its Q table: {error}") from None
        s, a, t = dataset.n_states, dataset.n_actions, c.n_tasklets
        if a > kernel.MAX_ACTIONS:
            raise ValueError(
                f"the dataset has {a} actions; the DPU program handles at most "
                f"{kernel.MAX_ACTIONS} (a table row of (value, count) pairs must fit one "
                f"2048-byte DMA)"
            )
        shares = tuple(dpu_shares(len(dataset), c.n_dpus))
        max_share = max(n for _, n in shares)
        tb = kernel.table_bytes(s, a)
        compact = kernel.compact_fits(s, a) if self.compact is None else self.compact
        if compact and not kernel.compact_fits(s, a):
            raise ValueError(f"compact records cannot hold a {s} x {a} table's transitions")
        rb = kernel.COMPACT_RECORD_BYTES if compact else kernel.RECORD_BYTES
        offset = rb * max_share
        region = t * tb
        combined_offset = offset + region
        block = kernel.choose_block(s, a, t, rb)
        buffer = kernel.buffer_transitions(c.layout, c.chunk, block)
        if kernel.wram_needed(s, a, t, buffer, False, rb) > kernel.WRAM_BYTES:
            raise ValueError(
                f"{t} tasklets' buffers for {a} actions do not fit in a DPU's 64 KiB WRAM; "
                f"use fewer tasklets or a smaller chunk"
            )
        fits = kernel.tables_fit_wram(s, a, t, buffer, rb)
        if self.tables == "wram" and not fits:
            raise ValueError(
                f"tables='wram', but {t} tables of {s} x {a} entries (with their counts, "
                f"{t * tb} bytes) do not fit in a DPU's 64 KiB WRAM; let them go to MRAM "
                f"(table placement 'auto' or 'mram'), or use fewer tasklets"
            )
        use_wram = fits if self.tables == "auto" else self.tables == "wram"
        needed = offset + region + tb
        if needed > kernel.MRAM_BYTES:
            raise ValueError(
                f"a {s} x {a} Q table is too big for MRAM: {t} learners' tables and counts "
                f"({region / 2**20:.1f} MiB) plus this DPU's {max_share} transitions "
                f"({offset / 2**20:.1f} MiB) need {needed / 2**20:.1f} MiB of a DPU's 64 "
                f"MiB; use fewer tasklets per DPU, more DPUs (smaller shares) or a smaller "
                f"state space"
            )
        return kernel.MemoryPlan(shares, max_share, offset, tb, region, needed, use_wram,
                                 combined_offset, block, rb)

    # ------------------------------------------------------------------ training

    def train(self, dataset: Dataset) -> TrainResult:
        """Train on ``dataset`` with the DPUs and return the combined table and timing.

        Raises:
            ValueError: the dataset does not fit (see :meth:`plan`), or a reward does not
                fit the INT32 format.
            pyupmem.PyUpmemError: the DPUs could not be allocated or a DPU faulted.
        """
        plan = self.plan(dataset)
        c = resolve_segments(self.config, len(dataset), dataset.n_states, dataset.n_actions)
        n_s, n_a, n_t = dataset.n_states, dataset.n_actions, c.n_tasklets
        fp32 = c.fmt == "fp32"
        dtype = np.float32 if fp32 else np.int32
        compact = plan.record_bytes == kernel.COMPACT_RECORD_BYTES
        run = TrainingRun(
            kernel.kernel_source(), name="rl_learner", nr_dpus=c.n_dpus, nr_tasklets=n_t,
            defines=kernel.kernel_defines(c.algorithm, c.fmt, c.layout, c.chunk, plan.block,
                                          n_a, compact),
            mram_needed=plan.mram_needed, needs="the data and tables",
            advice="use more DPUs or fewer tasklets", backend=self.backend,
            cluster=self.cluster, progress=self.progress, total=c.epochs,
            desc=f"training {c.algorithm}/{c.fmt} on {{dpus}} DPUs")
        d0, n_d = run.first, run.count  # this process's DPUs: d0 .. d0 + n_d - 1
        rewards = dataset.rewards_f32() if fp32 else dataset.rewards_q16()
        recs = kernel.records(dataset, rewards, permutation(c.layout, len(dataset), c.seed),
                              compact)
        shares = per_dpu(recs, plan.shares[d0:d0 + n_d], plan.max_share)
        counts = np.array([n for _, n in plan.shares[d0:d0 + n_d]], dtype=np.uint32)
        if fp32:
            coefs = (np.float32(c.alpha).view(np.uint32), np.float32(c.gamma).view(np.uint32))
        else:
            coefs = (np.uint32(fixed_point.coefficient(c.alpha, "alpha")),
                     np.uint32(fixed_point.coefficient(c.gamma, "gamma")))
        rng = initial_rng_states(c.seed, c.n_learners).reshape(c.n_dpus, n_t)[d0:d0 + n_d]
        entries = n_s * n_a
        heap = pyupmem.DPU_MRAM_HEAP_POINTER_NAME
        launches = launch_schedule(c.epochs, c.sync_every, plan.max_share, c.segments)
        expected = [e[d0:d0 + n_d] for e in self._expected_updates(plan, c.segments)]

        combined = np.zeros((n_s, n_a), dtype=dtype)
        with run:
            dpus = run.dpus
            pair = np.zeros((entries, 2), dtype=np.uint32)  # the combined table, counts 0
            raw = np.empty((n_d, n_t, entries, 2), dtype=np.uint32)  # reused at every sync
            weights: dict[tuple, np.ndarray] = {}  # pooled weights by launches since a sync
            since_sync: list[tuple[int, int]] = []
            settings = {
                "n_states": n_s, "n_actions": n_a, "alpha": coefs[0], "gamma_": coefs[1],
                "eps_threshold": eps_threshold(c.epsilon), "use_wram": int(plan.use_wram),
                "tables_offset": plan.tables_offset, "combined_offset": plan.combined_offset,
                "reset_tables": 1,
            }
            if c.segments > 1:
                settings["segments"] = c.segments
            run.send(settings)
            with run.phase(pyupmem.CPU_DPU):
                dpus.scatter("n_transitions", counts.reshape(n_d, 1))
                dpus.scatter("rng_state", rng)
                dpus.scatter(heap, shares)
                dpus.broadcast(heap, pair, offset=plan.combined_offset)
            expected_total = np.zeros(n_d, dtype=np.int64)  # updates of each DPU
            for step, segment, sync in launches:
                run.send({"epochs": step, **({"segment": segment} if c.segments > 1 else {})})
                run.launch()
                since_sync.append((step, segment))
                expected_total += expected[segment] * step
                run.send({"reset_tables": int(sync)})
                if sync:
                    with run.combining():
                        dpus.gather(heap, offset=plan.tables_offset, out=raw)
                        q, n = self._views(raw, dtype, n_s, n_a)
                        combined = self._combine(q, n, combined, weights, since_sync,
                                                 run.cluster)
                        since_sync.clear()
                        pair[:, 0] = combined.reshape(-1).view(np.uint32)
                        dpus.broadcast(heap, pair, offset=plan.combined_offset)
                run.progress(step)
            with run.phase(pyupmem.DPU_CPU):
                raw = dpus.gather(heap, np.uint32, (n_t, entries, 2),
                                  offset=plan.tables_offset)
                states = dpus.gather("rng_state", np.uint32, n_t)
                updates = dpus.gather("updates", np.uint32, n_t)
            self._check_updates(updates, expected_total, d0)
            with run.combining():
                q, n = self._split(raw, dtype, n_s, n_a)
                final = self._combine(q, n, combined, weights, since_sync, run.cluster)
        return TrainResult(
            c, final, q, n, states.reshape(-1).copy(), timer=run.timer,
            tables_in="wram" if plan.use_wram else "mram",
            updates=c.epochs * len(dataset), seconds=run.timer.total(),
            setup_seconds=run.setup_seconds, first_dpu=d0,
        )

    def _combine(self, q: np.ndarray, n: np.ndarray, previous: np.ndarray,
                 cache: dict[tuple, np.ndarray], since_sync: list[tuple[int, int]],
                 cluster: Cluster | None) -> np.ndarray:
        """The combined table of learner tables ``q`` and counts ``n``. The pooled weights
        depend only on the counts, and the counts since the last sync only on the
        launches (epochs, segment) made since: the weights are computed once per such
        sequence and kept in ``cache``."""
        c = self.config
        lr = step_alpha(c.alpha, c.fmt)
        w = None
        if c.combine == "pooled":
            key = tuple(since_sync)
            if key not in cache:
                cache[key] = pooled_weights(n, lr, cluster=cluster)
            w = cache[key]
        return combine_tables(q, n, c.combine, previous, lr, w, block=c.block_learners,
                              cluster=cluster)

    @staticmethod
    def _views(raw: np.ndarray, dtype, n_s: int, n_a: int) -> tuple[np.ndarray, np.ndarray]:
        """Learner tables ``(L, S, A)`` and counts as views into gathered ``(D, T, S * A,
        2)`` pairs, without a copy (a sync's combine reads each once)."""
        n_l = raw.shape[0] * raw.shape[1]
        q = raw.view(dtype)[..., 0].reshape(n_l, n_s, n_a)
        n = raw[..., 1].reshape(n_l, n_s, n_a)
        return q, n

    @classmethod
    def _split(cls, raw: np.ndarray, dtype, n_s: int, n_a: int) -> tuple[np.ndarray, np.ndarray]:
        """Learner tables ``(L, S, A)`` and counts from gathered ``(D, T, S * A, 2)``, as
        arrays of their own (the result keeps them)."""
        q, n = cls._views(raw, dtype, n_s, n_a)
        return q.copy(), n.copy()

    def _expected_updates(self, plan: kernel.MemoryPlan, segments: int) -> list[np.ndarray]:
        """Per segment, the updates each DPU makes in one epoch of it: ``(D,)`` int64."""
        c = self.config
        if segments == 1:
            return [np.array([n for _, n in plan.shares], dtype=np.int64)]
        out = [np.zeros(len(plan.shares), dtype=np.int64) for _ in range(segments)]
        for d, (_, n_d) in enumerate(plan.shares):
            for t in range(c.n_tasklets):
                m = len(local_indices(c.layout, n_d, c.n_tasklets, t, c.chunk))
                for part in range(segments):
                    out[part][d] += split(m, segments, part)[1]
        return out

    @staticmethod
    def _check_updates(updates: np.ndarray, expected: np.ndarray, first: int = 0) -> None:
        """Each DPU's tasklets counted their updates modulo 2**32 over all launches:
        their sum must equal the run's expected total modulo 2**32 (DPUs numbered from
        ``first``)."""
        made = updates.astype(np.int64).sum(axis=1) % 2**32
        want = expected % 2**32
        if not np.array_equal(made, want):
            d = int(np.flatnonzero(made != want)[0])
            raise RuntimeError(
                f"DPU {first + d} made {made[d]} updates (modulo 2**32) over the run, expected "
                f"{want[d]}; the DPU program and the host disagree on the layout. This is "
                f"a bug: please report it"
            )


def train_dpu(
    dataset: Dataset,
    algorithm: str = "qlearning",
    fmt: str = "fp32",
    layout: str = "block",
    n_dpus: int = 1,
    n_tasklets: int = 1,
    epochs: int = 1,
    alpha: float = 0.1,
    gamma: float = 0.95,
    epsilon: float = 0.1,
    sync_every: int = 0,
    combine: str = "pooled",
    seed: int = 0,
    chunk: int = DEFAULT_CHUNK,
    segments: int = 1,
    *,
    tables: str = "auto",
    progress: bool = False,
    backend: pyupmem.Backend | str | None = None,
    compact: bool | None = None,
) -> TrainResult:
    """Train on DPUs with the arguments (and defaults) of
    :func:`rl.reference.train_reference`, for side-by-side comparisons.

    Raises:
        ValueError: as :class:`Trainer` and :meth:`Trainer.train`.
    """
    return Trainer(
        algorithm=algorithm, layout=layout, fmt=fmt, nr_dpus=n_dpus, nr_tasklets=n_tasklets,
        epochs=epochs, alpha=alpha, gamma=gamma, epsilon=epsilon, sync_every=sync_every,
        combine=combine, seed=seed, chunk=chunk, segments=segments, tables=tables,
        progress=progress,
        backend=backend, compact=compact,
    ).train(dataset)
