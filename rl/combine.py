"""Combining the Q tables of many learners into one (host side, shared by every trainer).

Given learner tables ``Q`` of shape ``(L, S, A)`` and update counts ``n`` of the same
shape (updates since the last combine):

* ``"mean"``: ``sum_l Q_l / L``.
* ``"weighted"``: ``sum_l n_l * Q_l / sum_l n_l`` per entry; an entry no learner updated
  since the last combine keeps the ``previous`` combined value (zeros at first).

Sums run in float64, adding learners in order ``l = 0, 1, ..., L - 1``. The FP32 result
is cast to float32 (round to nearest even, then -0.0 becomes +0.0); the INT32 (Q15.16)
result is rounded half to even to int32 (saturating at the int32 range).
"""

from __future__ import annotations

import numpy as np

from . import fixed_point

#: Combine rules :func:`combine` accepts.
COMBINES: tuple[str, ...] = ("mean", "weighted")


def check_combine(rule: str) -> None:
    """Raise ``ValueError`` naming the known rules if ``rule`` is not one of them."""
    if rule not in COMBINES:
        raise ValueError(f"unknown combine rule {rule!r}; choose one of {', '.join(COMBINES)}")


def combine(
    tables: np.ndarray,
    counts: np.ndarray | None = None,
    rule: str = "mean",
    previous: np.ndarray | None = None,
) -> np.ndarray:
    """The combined ``(S, A)`` table of learner ``tables`` ``(L, S, A)``.

    ``tables`` are float32 (FP32) or int32 (INT32, Q15.16); the result has the same
    dtype. ``counts`` (required for ``"weighted"``) and ``previous`` are as described in
    the module docstring.

    Raises:
        ValueError: unknown rule, missing counts, mismatched shapes, or no learners.
    """
    check_combine(rule)
    tables = np.asarray(tables)
    if tables.ndim != 3 or tables.shape[0] < 1:
        raise ValueError(f"tables must have shape (learners >= 1, S, A), not {tables.shape}")
    if tables.dtype not in (np.float32, np.int32):
        raise ValueError(f"tables must be float32 (FP32) or int32 (INT32), not {tables.dtype}")
    n_learners = tables.shape[0]
    acc = np.zeros(tables.shape[1:], dtype=np.float64)
    if rule == "mean":
        for q in tables:
            acc += q.astype(np.float64)
        result = acc / n_learners
    else:
        if counts is None:
            raise ValueError("the 'weighted' combine needs the update counts of every learner")
        counts = np.asarray(counts)
        if counts.shape != tables.shape:
            raise ValueError(f"counts have shape {counts.shape}, tables {tables.shape}")
        total = np.zeros(tables.shape[1:], dtype=np.float64)
        for q, n in zip(tables, counts, strict=True):
            nf = n.astype(np.float64)
            acc += nf * q.astype(np.float64)
            total += nf
        if previous is None:
            previous = np.zeros(tables.shape[1:], dtype=tables.dtype)
        previous = np.asarray(previous)
        if previous.shape != tables.shape[1:]:
            raise ValueError(f"previous has shape {previous.shape}, expected {tables.shape[1:]}")
        updated = total > 0
        result = np.where(updated, acc / np.where(updated, total, 1.0),
                          previous.astype(np.float64))
    if tables.dtype == np.float32:
        return result.astype(np.float32) + np.float32(0.0)  # + 0.0 turns -0.0 into +0.0
    return np.clip(np.rint(result), fixed_point.INT32_MIN, fixed_point.INT32_MAX).astype(np.int32)
