"""A CPU reference of pimopt's DPU training, equal to the DPUs bit for bit.

This module is the specification of ``dpu_programs/pimopt/linear.c``. One launch on one
DPU (:func:`dpu_launch`), for each of its ``nr_steps`` steps (FP32: float32 operations
in the order written; INT32: the integer rules of :mod:`pimopt.fixed_point`):

1. The step's samples (:func:`pimopt.algorithms.step_count`) are split in contiguous
   ranges over the tasklets (the first ``count % T`` take one more).
2. For each sample in order: ``dot = ((0 + w_0 x_0) + w_1 x_1) + ...`` over the padded
   features in order; the error ``g`` (logistic regression: ``sigmoid(dot) - y`` with the
   table sigmoid; SVM: ``-y`` if ``y * dot < 1`` else 0); the tasklet's accumulator
   ``a_j = a_j + g x_j`` (starting from 0).
3. The sum ``r = ((a_0 + a_1) + a_2) + ...`` over the tasklets in order.
4. Mode 0 (GA-SGD): ``r`` is the output. Modes 1 and 2 (MA-SGD, ADMM), when the step
   had samples: ``w = w - lr * ((r * (1 / count) + lam * w) [+ rho * ((w - z) + u)])``
   (INT32: ``mean = trunc(r / count) * 8``, saturating sums, scaled coefficients).

Before the steps, ADMM with ``update_u`` sets ``u = u + (w - z)``; after them the output
is ``w`` (MA-SGD) or ``w + u`` (ADMM).

The host's side (:func:`train_reference`) is that of :class:`pimopt.trainer.Trainer`:
the same :func:`pyupmem.apps.training.combine` and the rules of :mod:`pimopt.algorithms`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import algorithms as alg
from . import fixed_point as fx
from . import kernel
from .data import DataSet
from .trainer import combine


def _sat_sequential_sum(p: np.ndarray, axis: int) -> np.ndarray:
    """The saturating int32 sum of int64 ``p`` along ``axis``, in order, from 0."""
    if p.size == 0:
        shape = list(p.shape)
        del shape[axis]
        return np.zeros(shape, dtype=np.int64)
    cs = np.cumsum(p, axis=axis)
    if cs.min() >= fx.INT32_MIN and cs.max() <= fx.INT32_MAX:
        return np.take(cs, -1, axis=axis)
    moved = np.moveaxis(p, axis, 0)
    s = np.zeros(moved.shape[1:], dtype=np.int64)
    for row in moved:
        s = fx.sat(s + row)
    return s


def _f32_sequential_sum(p: np.ndarray, axis: int) -> np.ndarray:
    """The float32 sum of ``p`` along ``axis``, in order, starting from +0."""
    shape = list(p.shape)
    shape[axis] = 1
    full = np.concatenate([np.zeros(shape, np.float32), p.astype(np.float32)], axis=axis)
    return np.take(np.cumsum(full, axis=axis, dtype=np.float32), -1, axis=axis)


def errors(fmt: str, model: str, dot: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The errors ``g`` of samples with dot products ``dot`` and labels ``y``."""
    if fmt == "fp32":
        yf = y.astype(np.float32)
        if model == "svm":
            return np.where(yf * dot < np.float32(1), -yf, np.float32(0)).astype(np.float32)
        return (fx.sigmoid_f32(dot) - yf).astype(np.float32)
    yi = y.astype(np.int64)
    if model == "svm":
        inside = np.where(yi > 0, dot < fx.DOT_ONE, dot > -fx.DOT_ONE)
        return np.where(inside, -yi * fx.VALUE_ONE, 0)
    return fx.sigmoid_q(dot) - yi * fx.VALUE_ONE


def gradient_sum(fmt: str, model: str, x: np.ndarray, y: np.ndarray, w: np.ndarray,
                 n_tasklets: int) -> np.ndarray:
    """Steps 1-3 for one step's samples ``x``, ``y`` (raw values): the reduced sum ``r``."""
    count = len(y)
    share, extra = divmod(count, n_tasklets)
    parts = []
    begin = 0
    for t in range(n_tasklets):
        m = share + (t < extra)
        xt, yt = x[begin:begin + m], y[begin:begin + m]
        begin += m
        if fmt == "fp32":
            dot = _f32_sequential_sum(w[None, :] * xt, axis=1)
            g = errors(fmt, model, dot, yt)
            parts.append(_f32_sequential_sum(g[:, None] * xt, axis=0))
        else:
            dot = _sat_sequential_sum(fx.mul15(w[None, :], xt), axis=1)
            g = errors(fmt, model, dot, yt)
            parts.append(_sat_sequential_sum(fx.mul15(g[:, None], xt), axis=0))
    r = parts[0]
    for a in parts[1:]:
        r = (r + a).astype(np.float32) if fmt == "fp32" else fx.sat(r + a)
    return r.astype(np.float32) if fmt == "fp32" else r.astype(np.int32)


def local_update(fmt: str, w: np.ndarray, r: np.ndarray, count: int, lr: float, lam: float,
                 rho: float, z: np.ndarray | None = None, u: np.ndarray | None = None
                 ) -> np.ndarray:
    """Step 4 on a DPU: one SGD step of ``w`` from the gradient sum ``r`` over ``count``
    samples (``z``, ``u`` given: ADMM's augmented term)."""
    if fmt == "fp32":
        f = np.float32
        inv = f(1) / f(count)
        g = r * inv + f(lam) * w
        if z is not None and u is not None:
            g = g + f(rho) * ((w - z) + u)
        return (w - f(lr) * g).astype(f)
    mean = fx.trunc_div(r, count) * 8
    g = fx.sat(mean + fx.smul(w, fx.scaled_coefficient(lam)))
    if z is not None and u is not None:
        d = fx.sat(fx.sat(w.astype(np.int64) - z) + u)
        g = fx.sat(g + fx.smul(d, fx.scaled_coefficient(rho)))
    return fx.sat(w.astype(np.int64) - fx.smul(g, fx.scaled_coefficient(lr))).astype(np.int32)


@dataclass
class DpuState:
    """One DPU's vectors between launches (raw values: float32 or int32)."""

    w: np.ndarray  #: the model (W)
    z: np.ndarray  #: the host's consensus (Z, ADMM)
    u: np.ndarray  #: the dual (U, ADMM)


def dpu_launch(c: alg.Config, x: np.ndarray, y: np.ndarray, state: DpuState,
               first_step: int, nr_steps: int, lr: float, update_u: bool) -> np.ndarray:
    """One launch on one DPU with samples ``x`` (raw, padded) and labels ``y``: updates
    ``state`` and returns OUT."""
    mode = alg.MODES[c.algorithm]
    fp32 = c.fmt == "fp32"
    if mode == 2 and update_u:
        state.u = ((state.u + (state.w - state.z)).astype(np.float32) if fp32 else
                   fx.sat(state.u.astype(np.int64) + fx.sat(state.w.astype(np.int64)
                                                            - state.z)).astype(np.int32))
    out = None
    for s in range(nr_steps):
        lo = (first_step + s) * c.batch
        count = alg.step_count(len(y), first_step + s, c.batch)
        r = gradient_sum(c.fmt, c.model, x[lo:lo + count], y[lo:lo + count], state.w,
                         c.n_tasklets)
        if mode == 0:
            out = r
        elif count:
            z, u = (state.z, state.u) if mode == 2 else (None, None)
            state.w = local_update(c.fmt, state.w, r, count, lr, c.lam, c.rho, z, u)
    if mode == 1:
        out = state.w.copy()
    elif mode == 2:
        out = ((state.w + state.u).astype(np.float32) if fp32 else
               fx.sat(state.w.astype(np.int64) + state.u).astype(np.int32))
    assert out is not None
    return out


def raw_features(fmt: str, x: np.ndarray, padded: int) -> np.ndarray:
    """Features as the DPUs hold them: float32 or Q3.12 int32, padded to ``padded``."""
    n, f = x.shape
    out = np.zeros((n, padded), dtype=np.float32 if fmt == "fp32" else np.int32)
    out[:, :f] = x if fmt == "fp32" else fx.to_q12(x)
    return out


def to_float(fmt: str, raw: np.ndarray) -> np.ndarray:
    """Float64 weights of raw model values."""
    return raw.astype(np.float64) if fmt == "fp32" else fx.from_q16(raw)


def train_reference(data: DataSet, c: alg.Config) -> np.ndarray:
    """Train on the CPU as the DPUs do; returns the raw model (float32 or int32, padded)."""
    p = kernel.plan(len(data), data.n_features, c.n_dpus, c.n_tasklets)
    x = raw_features(c.fmt, data.x, p.padded)
    y = data.labels(c.model)
    dtype = np.float32 if c.fmt == "fp32" else np.int32
    zero = np.zeros(p.padded, dtype=dtype)
    states = [DpuState(zero.copy(), zero.copy(), zero.copy()) for _ in range(c.n_dpus)]
    n_steps = alg.steps_per_epoch(p.max_share, c.batch)
    model = zero.copy()
    first = True
    for epoch, k, n in alg.launches(c, n_steps):
        lr = c.lr_at(epoch)
        outs = []
        for d, (start, count) in enumerate(p.shares):
            st = states[d]
            if c.algorithm == "admm":
                st.z = model.copy()
            else:
                st.w = model.copy()
            outs.append(dpu_launch(c, x[start:start + count], y[start:start + count], st,
                                   k, n, lr, not first))
        total = combine(np.stack(outs))
        if c.algorithm == "ga-sgd":
            size = sum(alg.step_count(cnt, k, c.batch) for _, cnt in p.shares)
            if size:
                model = alg.sgd_update(c.fmt, model, total, size, lr, c.lam)
        else:
            model = alg.mean_of_sum(c.fmt, total, c.n_dpus)
        first = False
    return model
