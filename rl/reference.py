"""The bit-exact CPU reference of the DPU learners: plain Python, one transition at a time.

This module *defines* what the DPU programs compute; their tables must equal these bit
for bit for the same dataset, layout, seeds and format. It is also the "pure Python"
speed baseline.

**Learners.** With ``D`` DPUs and ``T`` tasklets there are ``L = D * T`` learners;
learner ``l = d * T + t`` visits the transitions :func:`rl.layouts.learner_indices` gives
it, in that order. Each learner owns a Q table ``(S, A)`` (zero at the start), an update
count table ``n`` (uint32, updates of each entry since the last combine, saturating
at ``2**32 - 1``: a count never wraps) and, for SARSA, a 32-bit generator state.

**One update** of transition ``(s, a, r, s2, terminal)``; all reads precede the write:

* FP32 (every operation rounded to float32, no fused multiply-add; ``r`` is
  :meth:`Dataset.rewards_f32`, ``alpha`` and ``gamma`` are float32)::

      q = Q[s, a]
      target = r                        if terminal
             = r + (gamma * b)          otherwise      (b: the bootstrap value)
      Q[s, a] = q + (alpha * (target - q))

* INT32 (Q15.16 values, Q0.15 coefficients ``ca = coefficient(alpha)``,
  ``cg = coefficient(gamma)``, helpers of :mod:`rl.fixed_point`; ``r`` is
  :meth:`Dataset.rewards_q16`)::

      target = r                        if terminal
             = sat_add(r, mul(b, cg))   otherwise
      Q[s, a] = sat_add(q, mul(sat_sub(target, q), ca))

* then ``n[s, a] = min(n[s, a] + 1, 2**32 - 1)``.

The bootstrap value ``b`` is only computed when the transition is not terminal.
Q-learning: ``b = max_a' Q[s2, a']`` (scan ``a'`` upwards, replace on strict ``>``;
tables start at +0.0 and never hold -0.0 or NaN, so any correct max agrees).
SARSA: ``u = next()``; if ``u < eps_threshold`` then ``a' = next() % A`` else
``a' = argmax_a' Q[s2, a']`` (the lowest index among ties: scan upwards, replace only
on strict ``>``); ``b = Q[s2, a']``.

**Generator** (:func:`xorshift32`): ``x ^= x << 13; x ^= x >> 17; x ^= x << 5`` modulo
2**32, ``next()`` returns the new ``x``. ``eps_threshold = min(floor(epsilon * 2**32),
2**32 - 1)``. Learner ``l`` starts from :func:`learner_seed` ``(seed, l)``; its state
persists across epochs and combines.

**Training.** ``epochs`` passes; in each, every learner visits its whole sequence once.
With ``sync_every = K > 0``, after epoch ``e`` (1-based) with ``e % K == 0`` and
``e < epochs`` the host combines all tables (:func:`rl.combine.combine`, with the learners' real
learning rate :func:`rl.combine.step_alpha`, summing over learners within each block of
:attr:`TrainConfig.block_learners`, then over the blocks) and broadcasts
the result: every learner's table becomes the combined table and its counts 0. With
``segments = K > 1`` (which needs ``sync_every = 1``; ``segments = 0`` picks ``K`` from
the data, :func:`resolve_segments`) every epoch is split into ``K``
parts: learner ``l`` first visits part 0 of the even split
``rl.layouts.split(len(seq_l), K, k)`` of its sequence, then all tables are combined
and broadcast, then part 1, and so on; the host combines after every part except the
last part of the last epoch. After
the last epoch the host combines once more (without broadcasting); that is
:attr:`Result.table`. :attr:`Result.tables`, :attr:`Result.counts` and
:attr:`Result.rng_states` are the learners' state after the last epoch, before that
final combine (what a DPU trainer reads back from the DPUs).
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field, replace

import numpy as np

from pyupmem.apps.distributed import BLOCK_DPUS

from . import fixed_point
from .combine import check_combine, combine, step_alpha
from .datasets import Dataset
from .layouts import DEFAULT_CHUNK, check_layout, learner_indices, split

ALGORITHMS: tuple[str, ...] = ("qlearning", "sarsa")  #: learning algorithms
FORMATS: tuple[str, ...] = ("fp32", "int32")  #: number formats

_M32 = 0xFFFFFFFF


def xorshift32(x: int) -> int:
    """One step of the xorshift32 generator: the new state, which is also the output."""
    x ^= (x << 13) & _M32
    x ^= x >> 17
    x ^= (x << 5) & _M32
    return x


def fmix32(x: int) -> int:
    """MurmurHash3's 32-bit finaliser."""
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & _M32
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & _M32
    x ^= x >> 16
    return x


def learner_seed(seed: int, learner: int) -> int:
    """Initial xorshift32 state of learner ``learner`` for run seed ``seed``.

    ``fmix32((seed * 0x9E3779B9 + (learner + 1) * 0x85EBCA6B) mod 2**32)``, replaced by
    ``0x6D2B79F5`` if that is 0 (xorshift32 must not start at 0).
    """
    x = fmix32((seed * 0x9E3779B9 + (learner + 1) * 0x85EBCA6B) & _M32)
    return x if x else 0x6D2B79F5


def eps_threshold(epsilon: float) -> int:
    """SARSA's exploration threshold: ``min(floor(epsilon * 2**32), 2**32 - 1)``."""
    return min(math.floor(float(epsilon) * 2**32), _M32)


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a training run besides the dataset."""

    algorithm: str = "qlearning"  #: ``"qlearning"`` or ``"sarsa"``
    fmt: str = "fp32"  #: ``"fp32"`` or ``"int32"``
    layout: str = "block"  #: see :mod:`rl.layouts`
    n_dpus: int = 1  #: number of DPUs
    n_tasklets: int = 1  #: tasklets (learners) per DPU
    epochs: int = 1  #: passes over the data
    alpha: float = 0.1  #: learning rate
    gamma: float = 0.95  #: discount
    epsilon: float = 0.1  #: SARSA's exploration probability
    sync_every: int = 0  #: combine and broadcast every K epochs (0: only at the end)
    #: combines per epoch: each learner's share of an epoch is split into this many parts,
    #: with a combine after each (needs ``sync_every = 1`` when above 1); 0: chosen from
    #: the data (:func:`resolve_segments`)
    segments: int = 1
    combine: str = "pooled"  #: one of :data:`rl.combine.COMBINES`
    seed: int = 0  #: seeds the random layout's permutation and SARSA's generators
    chunk: int = DEFAULT_CHUNK  #: transitions per chunk of the stride layout

    @property
    def n_learners(self) -> int:
        """``n_dpus * n_tasklets``."""
        return self.n_dpus * self.n_tasklets

    @property
    def block_learners(self) -> int:
        """Learners per block of the combine's fixed summation order: the tasklets of
        :data:`pyupmem.apps.distributed.BLOCK_DPUS` consecutive DPUs (one hardware rank)."""
        return BLOCK_DPUS * self.n_tasklets

    def validate(self) -> TrainConfig:
        """Raise ``ValueError`` naming the bad setting and its valid range; return self."""
        if self.algorithm not in ALGORITHMS:
            raise ValueError(
                f"unknown algorithm {self.algorithm!r}; choose one of {', '.join(ALGORITHMS)}"
            )
        if self.fmt not in FORMATS:
            raise ValueError(f"unknown format {self.fmt!r}; choose one of {', '.join(FORMATS)}")
        check_layout(self.layout)
        check_combine(self.combine)
        for name in ("n_dpus", "n_tasklets", "epochs", "chunk"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name}={getattr(self, name)} must be at least 1")
        if self.sync_every < 0:
            raise ValueError(f"sync_every={self.sync_every} must be 0 (end only) or >= 1")
        if int(self.segments) < 0:
            raise ValueError(f"segments={self.segments} must be 0 (auto) or at least 1")
        if self.segments > 1 and self.sync_every != 1:
            raise ValueError(
                f"segments={self.segments} (combines per epoch) needs sync_every=1, not "
                f"{self.sync_every}"
            )
        if self.seed < 0:
            raise ValueError(f"seed={self.seed} must be >= 0")
        for name in ("alpha", "gamma", "epsilon"):
            v = float(getattr(self, name))
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name}={v} must lie in [0, 1]")
        if self.fmt == "int32":
            fixed_point.coefficient(self.alpha, "alpha")
            fixed_point.coefficient(self.gamma, "gamma")
        return self


@dataclass(frozen=True, eq=False)
class Result:
    """The outcome of a training run (see the module docstring for what each holds)."""

    config: TrainConfig  #: the settings of the run
    table: np.ndarray  #: (S, A) combined table: float32, or int32 Q15.16
    tables: np.ndarray = field(repr=False)  #: (L, S, A) learner tables after the last epoch
    counts: np.ndarray = field(repr=False)  #: (L, S, A) uint32 updates since the last combine
    #: (saturating at 2**32 - 1)
    rng_states: np.ndarray = field(repr=False)  #: (L,) uint32 generator states

    def q_values(self) -> np.ndarray:
        """The combined table as float64 values (Q15.16 decoded for INT32)."""
        if self.table.dtype == np.int32:
            return fixed_point.from_q16(self.table)
        return self.table.astype(np.float64)


#: combines per epoch that ``segments=0`` (auto) picks for learners with small shares
AUTO_SEGMENTS = 2
#: auto picks :data:`AUTO_SEGMENTS` when a learner's share of an epoch holds fewer than
#: this many transitions per table entry ...
AUTO_COVERAGE = 4
#: ... and fewer than this many transitions
AUTO_SHARE = 256


def resolve_segments(cfg: TrainConfig, n: int, n_states: int, n_actions: int) -> TrainConfig:
    """``cfg`` with ``segments=0`` (auto) replaced by the number it means for ``n``
    transitions and an ``(n_states, n_actions)`` table; any other value is kept.

    Auto: :data:`AUTO_SEGMENTS` combines per epoch when the learners combine every epoch
    (``sync_every = 1``), there is more than one learner, and a learner's share of an
    epoch, ``ceil(n / L)`` transitions, is below both ``AUTO_COVERAGE * n_states *
    n_actions`` and :data:`AUTO_SHARE` (too few for a learner to carry value information
    along its own share between combines); otherwise 1. The second bound keeps large
    datasets at one combine per epoch whatever the table size: there every extra
    combine costs a launch, a gather and a broadcast of all tables, and none was needed
    (Taxi, 1M transitions, 1,024 learners: the optimal return with one).
    """
    if cfg.segments:
        return cfg
    share = -(-int(n) // cfg.n_learners)
    small = share < min(AUTO_COVERAGE * int(n_states) * int(n_actions), AUTO_SHARE)
    k = AUTO_SEGMENTS if cfg.sync_every == 1 and cfg.n_learners > 1 and small else 1
    return replace(cfg, segments=k)


def make_config(**settings) -> TrainConfig:
    """A validated :class:`TrainConfig` (``ValueError`` on a bad or unknown setting)."""
    known = TrainConfig.__dataclass_fields__
    unknown = sorted(set(settings) - set(known))
    if unknown:
        raise ValueError(f"unknown training setting(s) {unknown}; known: {sorted(known)}")
    return TrainConfig(**settings).validate()


def prepared_rewards(dataset: Dataset, fmt: str) -> np.ndarray:
    """The dataset's rewards in the learners' format (float32, or int32 Q15.16)."""
    return dataset.rewards_f32() if fmt == "fp32" else dataset.rewards_q16()


def initial_rng_states(seed: int, n_learners: int) -> np.ndarray:
    """uint32 (L,) initial generator states of all learners."""
    return np.array([learner_seed(seed, i) for i in range(n_learners)], dtype=np.uint32)


def train_reference(
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
) -> Result:
    """Train with the bit-exact pure-Python reference (see the module docstring).

    Raises:
        ValueError: a bad setting (unknown algorithm, format, layout or combine rule; a
            count below 1; alpha/gamma/epsilon outside [0, 1], or alpha/gamma = 1 with
            INT32) or a dataset that does not fit its table.
    """
    cfg = make_config(
        algorithm=algorithm, fmt=fmt, layout=layout, n_dpus=n_dpus, n_tasklets=n_tasklets,
        epochs=epochs, alpha=alpha, gamma=gamma, epsilon=epsilon, sync_every=sync_every,
        combine=combine, seed=seed, chunk=chunk, segments=segments,
    )
    return _train(dataset.validate(), cfg)


def _train(ds: Dataset, cfg: TrainConfig) -> Result:
    cfg = resolve_segments(cfg, len(ds), ds.n_states, ds.n_actions)
    n_s, n_a, n_l = ds.n_states, ds.n_actions, cfg.n_learners
    seqs = [ix.tolist() for ix in learner_indices(
        cfg.layout, len(ds), cfg.n_dpus, cfg.n_tasklets, cfg.chunk, cfg.seed)]
    data = (ds.state.tolist(), ds.action.tolist(), prepared_rewards(ds, cfg.fmt).tolist(),
            ds.next_state.tolist(), ds.terminal.tolist())
    fp32 = cfg.fmt == "fp32"
    dtype = np.float32 if fp32 else np.int32
    sarsa = cfg.algorithm == "sarsa"
    rng = [learner_seed(cfg.seed, i) for i in range(n_l)]
    combined = np.zeros((n_s, n_a), dtype=dtype)
    tables = [_table(combined, fp32) for _ in range(n_l)]
    counts = [_counts(n_s, n_a) for _ in range(n_l)]
    if fp32:
        step = _run_fp32
        coefs = (float(np.float32(cfg.alpha)), float(np.float32(cfg.gamma)))
    else:
        step = _run_int32
        coefs = (fixed_point.coefficient(cfg.alpha, "alpha"),
                 fixed_point.coefficient(cfg.gamma, "gamma"))
    thr = eps_threshold(cfg.epsilon)
    lr = step_alpha(cfg.alpha, cfg.fmt)

    def snapshot() -> tuple[np.ndarray, np.ndarray]:
        q = np.frombuffer(b"".join(row.tobytes() for t in tables for row in t), dtype=dtype)
        n = np.frombuffer(b"".join(row.tobytes() for c in counts for row in c), np.uint64)
        q = q.reshape(n_l, n_s, n_a).copy()
        return q, np.minimum(n, _M32).astype(np.uint32).reshape(n_l, n_s, n_a)

    parts = cfg.segments
    pieces = [[seq[start:start + count] for start, count in
               (split(len(seq), parts, p) for p in range(parts))] for seq in seqs]
    for epoch in range(1, cfg.epochs + 1):
        for part in range(parts):
            for k in range(n_l):
                rng[k] = step(tables[k], counts[k], pieces[k][part], data, coefs, sarsa, thr,
                              rng[k], n_a)
            last = epoch == cfg.epochs and part == parts - 1
            if last or not (cfg.sync_every and epoch % cfg.sync_every == 0):
                continue
            q, n = snapshot()
            combined = combine(q, n, cfg.combine, combined, lr, block=cfg.block_learners)
            tables = [_table(combined, fp32) for _ in range(n_l)]
            counts = [_counts(n_s, n_a) for _ in range(n_l)]
    q, n = snapshot()
    final = combine(q, n, cfg.combine, combined, lr, block=cfg.block_learners)
    return Result(cfg, final, q, n, np.array(rng, dtype=np.uint32))


def _table(values: np.ndarray, fp32: bool) -> list[array]:
    """A learner's table: one C array per state (float32 'f' or int32 'i' elements)."""
    code = "f" if fp32 else "i"
    assert array(code).itemsize == 4
    return [array(code, row.tobytes()) for row in values]


def _counts(n_states: int, n_actions: int) -> list[array]:
    """A learner's zero update counts (64-bit; clamped to 2**32 - 1 when read out)."""
    zero = bytes(8 * n_actions)
    return [array("Q", zero) for _ in range(n_states)]


def _run_fp32(q_tab, n_tab, seq, data, coefs, sarsa, thr, x, n_a):
    """One epoch of one FP32 learner; returns its generator state."""
    states, actions, rewards, next_states, terminals = data
    alpha, gamma = coefs
    f = array("f", [0.0])  # storing into a float32 array rounds to nearest even
    for i in seq:
        s = states[i]
        a = actions[i]
        row = q_tab[s]
        q = row[a]
        r = rewards[i]
        if terminals[i]:
            target = r
        else:
            nrow = q_tab[next_states[i]]
            if sarsa:
                x ^= (x << 13) & 0xFFFFFFFF
                x ^= x >> 17
                x ^= (x << 5) & 0xFFFFFFFF
                if x < thr:
                    x ^= (x << 13) & 0xFFFFFFFF
                    x ^= x >> 17
                    x ^= (x << 5) & 0xFFFFFFFF
                    b = nrow[x % n_a]
                else:
                    b = nrow[0]
                    for j in range(1, n_a):
                        if nrow[j] > b:
                            b = nrow[j]
            else:
                b = max(nrow)
            f[0] = gamma * b
            f[0] = r + f[0]
            target = f[0]
        f[0] = target - q
        f[0] = alpha * f[0]
        row[a] = q + f[0]
        n_tab[s][a] += 1
    return x


def _run_int32(q_tab, n_tab, seq, data, coefs, sarsa, thr, x, n_a):
    """One epoch of one INT32 learner; returns its generator state."""
    states, actions, rewards, next_states, terminals = data
    ca, cg = coefs
    lo, hi = fixed_point.INT32_MIN, fixed_point.INT32_MAX
    for i in seq:
        s = states[i]
        a = actions[i]
        row = q_tab[s]
        q = row[a]
        r = rewards[i]
        if terminals[i]:
            target = r
        else:
            nrow = q_tab[next_states[i]]
            if sarsa:
                x ^= (x << 13) & 0xFFFFFFFF
                x ^= x >> 17
                x ^= (x << 5) & 0xFFFFFFFF
                if x < thr:
                    x ^= (x << 13) & 0xFFFFFFFF
                    x ^= x >> 17
                    x ^= (x << 5) & 0xFFFFFFFF
                    b = nrow[x % n_a]
                else:
                    b = nrow[0]
                    for j in range(1, n_a):
                        if nrow[j] > b:
                            b = nrow[j]
            else:
                b = max(nrow)
            target = r + (b >> 15) * cg + (((b & 0x7FFF) * cg + 0x4000) >> 15)
            target = lo if target < lo else hi if target > hi else target
        d = target - q
        d = lo if d < lo else hi if d > hi else d
        v = q + (d >> 15) * ca + (((d & 0x7FFF) * ca + 0x4000) >> 15)
        row[a] = lo if v < lo else hi if v > hi else v
        n_tab[s][a] += 1
    return x
