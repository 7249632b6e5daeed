"""A vectorised numpy CPU trainer: all learners step together, one transition each per step.

It computes exactly what :mod:`rl.reference` defines (same tables, counts and generator
states, bit for bit) and is the fast CPU baseline the DPU trainer is measured against:
the trainer a user would write with numpy. Its speed grows with the number of learners
``L`` (each numpy step updates all of them); with a single learner it is no faster than
the pure-Python reference.
"""

from __future__ import annotations

import numpy as np

from . import fixed_point
from .combine import combine, step_alpha
from .datasets import Dataset
from .layouts import DEFAULT_CHUNK, learner_indices, split
from .reference import (
    Result,
    TrainConfig,
    eps_threshold,
    initial_rng_states,
    make_config,
    resolve_segments,
)


def train_baseline(
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
    """Train with the vectorised numpy baseline; same arguments and result as
    :func:`rl.reference.train_reference`.

    Raises:
        ValueError: as :func:`rl.reference.train_reference`.
    """
    cfg = make_config(
        algorithm=algorithm, fmt=fmt, layout=layout, n_dpus=n_dpus, n_tasklets=n_tasklets,
        epochs=epochs, alpha=alpha, gamma=gamma, epsilon=epsilon, sync_every=sync_every,
        combine=combine, seed=seed, chunk=chunk, segments=segments,
    )
    return _train(dataset.validate(), cfg)


def _xorshift(x: np.ndarray) -> np.ndarray:
    x = x ^ (x << np.uint32(13))
    x = x ^ (x >> np.uint32(17))
    return x ^ (x << np.uint32(5))


def _train(ds: Dataset, cfg: TrainConfig) -> Result:
    cfg = resolve_segments(cfg, len(ds), ds.n_states, ds.n_actions)
    n_s, n_a, n_l = ds.n_states, ds.n_actions, cfg.n_learners
    seqs = learner_indices(cfg.layout, len(ds), cfg.n_dpus, cfg.n_tasklets, cfg.chunk, cfg.seed)
    fp32 = cfg.fmt == "fp32"
    rewards = ds.rewards_f32() if fp32 else ds.rewards_q16().astype(np.int64)
    parts = []  # per segment: (steps, order, active counts, fields) of every learner's part
    for part in range(cfg.segments):
        pieces = []
        for x in seqs:
            start, count = split(len(x), cfg.segments, part)
            pieces.append(x[start:start + count])
        lengths = np.array([len(x) for x in pieces], dtype=np.int64)
        steps = int(lengths.max(initial=0))
        idx = np.zeros((steps, n_l), dtype=np.int64)  # step-major, so each step reads a row
        for k, x in enumerate(pieces):
            idx[: len(x), k] = x
        fields = (ds.state[idx], ds.action[idx], rewards[idx], ds.next_state[idx],
                  ds.terminal[idx].astype(bool))
        # learners still active at step j: lengths > j; sorted so they form a prefix
        order = np.argsort(-lengths, kind="stable")
        active_count = (lengths[order][None, :] > np.arange(steps)[:, None]).sum(axis=1)
        parts.append((steps, order, active_count, fields))
    dtype = np.float32 if fp32 else np.int32
    q = np.zeros((n_l, n_s, n_a), dtype=dtype)
    n = np.zeros((n_l, n_s, n_a), dtype=np.uint32)
    rng = initial_rng_states(cfg.seed, n_l)
    combined = np.zeros((n_s, n_a), dtype=dtype)
    if fp32:
        ca, cg = np.float32(cfg.alpha), np.float32(cfg.gamma)
    else:
        ca = fixed_point.coefficient(cfg.alpha, "alpha")
        cg = fixed_point.coefficient(cfg.gamma, "gamma")
    sarsa = cfg.algorithm == "sarsa"
    thr = np.uint32(eps_threshold(cfg.epsilon))
    lr = step_alpha(cfg.alpha, cfg.fmt)
    top = np.uint32(0xFFFFFFFF)

    for epoch in range(1, cfg.epochs + 1):
        for part, (steps, order, active_count, (st, ac, rw, ns, te)) in enumerate(parts):
            for j in range(steps):
                m = int(active_count[j])
                lid = order[:m] if m < n_l else slice(None)
                lrn = order[:m] if m < n_l else np.arange(n_l)
                s, a, r, s2, t = st[j, lid], ac[j, lid], rw[j, lid], ns[j, lid], te[j, lid]
                cur = q[lrn, s, a]
                boot = ~t
                bl, bs2 = lrn[boot], s2[boot]
                rows = q[bl, bs2]  # (b, A): the next states' rows of bootstrapping learners
                if sarsa:
                    x = _xorshift(rng[bl])
                    explore = x < thr
                    x[explore] = _xorshift(x[explore])
                    rng[bl] = x
                    pick = np.where(explore, x % np.uint32(n_a), np.argmax(rows, axis=1))
                    b = rows[np.arange(rows.shape[0]), pick.astype(np.int64)]
                else:
                    b = rows.max(axis=1)
                if fp32:
                    target = r.copy()
                    target[boot] = r[boot] + cg * b
                    new = cur + ca * (target - cur)
                else:
                    target = r.copy()
                    target[boot] = fixed_point.sat_add_array(
                        r[boot], fixed_point.mul_array(b, cg))
                    diff = fixed_point.sat_sub_array(target, cur)
                    new = fixed_point.sat_add_array(cur, fixed_point.mul_array(diff, ca))
                q[lrn, s, a] = new
                cnt = n[lrn, s, a]
                n[lrn, s, a] = cnt + (cnt != top)  # saturating
            last = epoch == cfg.epochs and part == len(parts) - 1
            if not last and cfg.sync_every and epoch % cfg.sync_every == 0:
                combined = combine(q, n, cfg.combine, combined, lr, block=cfg.block_learners)
                q[...] = combined
                n[...] = 0
    final = combine(q, n, cfg.combine, combined, lr, block=cfg.block_learners)
    return Result(cfg, final, q, n, rng)
