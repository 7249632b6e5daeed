"""The training settings and the host's rules, shared by the DPU trainer and the reference.

**Algorithms** (all on the objective ``mean loss + lam / 2 * ||w||^2``):

* ``"ga-sgd"``: every step, each DPU sums the gradients of its part of the mini-batch
  (``batch`` samples of each DPU); the host adds the DPUs' sums
  (:func:`pyupmem.apps.training.combine`), divides by the samples of the step and updates the
  one model (:func:`sgd_update`), which it broadcasts before the next step.
* ``"ma-sgd"``: every launch, each DPU makes ``local_steps`` SGD steps on its own copy
  of the model; the host averages the models (:func:`mean_of_sum`) and broadcasts the mean.
* ``"admm"``: consensus ADMM. Every round, each DPU first updates its dual
  ``u += w - z`` (from the second round on), then makes ``local_steps`` SGD steps on
  ``f_d(w) + lam / 2 ||w||^2 + rho / 2 ||w - z + u||^2`` (warm-started from its own
  ``w``) and returns ``w + u``; the host sets ``z = mean(w + u)``. The model is ``z``.

**Steps**: a DPU's samples are visited in order in mini-batches of ``batch``; an epoch
is :func:`steps_per_epoch` steps (the same on every DPU), step ``k`` taking a DPU's local
samples ``[k * batch, min((k + 1) * batch, n_d))`` (possibly none on a DPU with fewer
samples). A launch never spans two epochs.

**Learning-rate schedules** (:data:`SCHEDULES`, per epoch ``e = 0, 1, ...``):
``"constant"``: ``lr``; ``"inverse-sqrt"``: ``lr / sqrt(1 + e)``; ``"inverse"``:
``lr / (1 + e)``: PIM-Opt trains with constant and with decaying learning rates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import fixed_point as fx

ALGORITHMS: tuple[str, ...] = ("ga-sgd", "ma-sgd", "admm")
"""The distributed algorithms."""
MODELS: tuple[str, ...] = ("lr", "svm")
"""The models: logistic regression and linear SVM (hinge loss, L2)."""
FORMATS: tuple[str, ...] = ("fp32", "int32")
"""Number formats on the DPUs (:mod:`pimopt.fixed_point` for INT32)."""
SCHEDULES: tuple[str, ...] = ("constant", "inverse-sqrt", "inverse")
"""Learning-rate schedules over the epochs."""
MODES: dict[str, int] = {"ga-sgd": 0, "ma-sgd": 1, "admm": 2}
"""The DPU program's ``mode`` of each algorithm."""


@dataclass(frozen=True)
class Config:
    """Validated training settings (see :class:`pimopt.trainer.Trainer` for each)."""

    model: str = "lr"  #: ``"lr"`` or ``"svm"``
    algorithm: str = "ga-sgd"  #: one of :data:`ALGORITHMS`
    fmt: str = "fp32"  #: one of :data:`FORMATS`
    n_dpus: int = 4  #: DPUs
    n_tasklets: int = 8  #: tasklets per DPU
    epochs: int = 10  #: passes over the data
    batch: int = 32  #: samples per DPU per step
    lr: float = 0.1  #: initial learning rate
    schedule: str = "constant"  #: one of :data:`SCHEDULES`
    lam: float = 1e-4  #: L2 strength
    rho: float = 0.1  #: ADMM's penalty
    local_steps: int = 8  #: local steps per launch of MA-SGD and ADMM (0 for one epoch)

    def lr_at(self, epoch: int) -> float:
        """The learning rate of epoch ``epoch`` (0-based)."""
        if self.schedule == "inverse-sqrt":
            return self.lr / math.sqrt(1 + epoch)
        if self.schedule == "inverse":
            return self.lr / (1 + epoch)
        return self.lr


def make_config(**settings: object) -> Config:
    """A :class:`Config` of ``settings``, checked.

    Raises:
        ValueError: a setting out of range, named with its valid range.
    """
    c = Config(**settings)  # type: ignore[arg-type]
    for name, value, choices in (("model", c.model, MODELS),
                                 ("algorithm", c.algorithm, ALGORITHMS),
                                 ("fmt", c.fmt, FORMATS), ("schedule", c.schedule, SCHEDULES)):
        if value not in choices:
            raise ValueError(f"{name}={value!r}; choose one of {', '.join(choices)}")
    for name, value, low in (("n_dpus", c.n_dpus, 1), ("n_tasklets", c.n_tasklets, 1),
                             ("epochs", c.epochs, 1), ("batch", c.batch, 1),
                             ("local_steps", c.local_steps, 0)):
        if int(value) < low:
            raise ValueError(f"{name}={value}: must be at least {low}")
    if c.n_tasklets > 24:
        raise ValueError(f"n_tasklets={c.n_tasklets}: a DPU runs 1 to 24 tasklets")
    if not (c.lr > 0 and c.lam >= 0 and c.rho >= 0):
        raise ValueError("lr must be positive, lam and rho at least 0")
    if c.fmt == "int32":
        for name, value in (("lr", c.lr), ("lam", c.lam), ("rho", c.rho)):
            fx.scaled_coefficient(value, name)
    return c


def steps_per_epoch(max_share: int, batch: int) -> int:
    """Steps of one epoch: enough for the largest DPU share."""
    return max(1, -(-int(max_share) // int(batch)))


def step_count(n_d: int, step: int, batch: int) -> int:
    """Samples a DPU with ``n_d`` samples takes at step ``step`` of an epoch."""
    lo = step * batch
    return max(0, min(lo + batch, n_d) - lo)


def launches(c: Config, n_steps: int) -> list[tuple[int, int, int]]:
    """The launches of a run, in order: ``(epoch, first step, steps)``."""
    per = 1 if c.algorithm == "ga-sgd" else (c.local_steps or n_steps)
    out = []
    for e in range(c.epochs):
        k = 0
        while k < n_steps:
            n = min(per, n_steps - k)
            out.append((e, k, n))
            k += n
    return out


def coefficients(c: Config, lr: float) -> dict[str, int]:
    """The DPU program's coefficient variables (``lr``, ``lam``, ``rho`` and their shifts)
    for learning rate ``lr``: float bits (FP32) or scaled Q0.15 (INT32)."""
    if c.fmt == "fp32":
        bits = {k: int(np.float32(v).view(np.uint32)) for k, v in
                (("lr", lr), ("lam", c.lam), ("rho", c.rho))}
        return {**bits, "lr_shift": 0, "lam_shift": 0, "rho_shift": 0}
    out: dict[str, int] = {}
    for k, v in (("lr", lr), ("lam", c.lam), ("rho", c.rho)):
        out[k], out[k + "_shift"] = fx.scaled_coefficient(v, k)
    return out


def sgd_update(fmt: str, w: np.ndarray, total: np.ndarray, count: int, lr: float,
               lam: float) -> np.ndarray:
    """The GA-SGD host step: ``w - lr * (total / count + lam * w)`` in the DPU's arithmetic
    (FP32: float32 operations in the program's order; INT32: its integer rules). ``total``
    is the combined gradient sum (float32, or int64 of Q18.13), ``count`` > 0."""
    if fmt == "fp32":
        f = np.float32
        inv = f(1) / f(count)
        mean = (total.astype(f) * inv).astype(f)
        g = mean + f(lam) * w
        return (w - f(lr) * g).astype(f)
    mean = fx.trunc_div(total, count) * 8
    g = fx.sat(mean + fx.smul(w, fx.scaled_coefficient(lam)))
    return fx.sat(np.asarray(w, np.int64) - fx.smul(g, fx.scaled_coefficient(lr))).astype(
        np.int32)


def mean_of_sum(fmt: str, total: np.ndarray, n: int) -> np.ndarray:
    """The mean of ``n`` vectors from their combined sum: FP32 ``float32(total) /
    float32(n)``; INT32 the truncating integer division, as int32."""
    if fmt == "fp32":
        return (np.asarray(total, np.float32) / np.float32(n)).astype(np.float32)
    return fx.sat(fx.trunc_div(total, n)).astype(np.int32)
