"""The INT32 fixed-point formats of pimopt's DPU programs, defined bit for bit.

* **Features** are **Q3.12**: ``x`` is stored as ``round_half_even(x * 4096)`` clipped to
  ``[-32767, 32767]`` (values in about ``(-8, 8)``; standardised features fit).
* **Weights**, the ADMM vectors ``z`` and ``u``, errors and steps are **Q15.16** (as
  rl's values, :mod:`rl.fixed_point`).
* **Dot products and gradient sums** are **Q18.13**: the product of a Q15.16 weight
  and a Q3.12 feature is :func:`mul15` (``w * x / 2**15``, rounded half up), summed with
  saturating int32 additions.
* **Coefficients** (learning rate, L2 strength, ADMM's rho) are *scaled* Q0.15
  coefficients ``(c, s)``: ``x * coef = mul15(x, c) >> s`` with ``c`` in ``[0, 32767]``
  (:func:`scaled_coefficient`), so small rates keep 15 significant bits.
* **Sigmoid**: linear interpolation of a table of :data:`SIG_POINTS` values
  ``sigmoid(-8 + k / 4)`` (Q15.16) at steps of 1/4; below -8 the first value, from 8
  on the last (:func:`sigmoid_q`). Its largest error is under 1e-3.
* A mean over ``n`` samples is C's truncating division of the Q18.13 sum by ``n``,
  times 8 (to Q15.16).

In C, with ``int32_t`` arithmetic and arithmetic ``>>``::

    mul15(x, c) = (x >> 15) * c + ((((x & 0x7FFF) * c) + 0x4000) >> 15)

which never overflows for ``|c| <= 32767`` (rl's :func:`rl.fixed_point.mul` for signed
``c``). The array functions compute in int64 and return int64.
"""

from __future__ import annotations

import numpy as np

from rl.fixed_point import INT32_MAX, INT32_MIN

FEATURE_ONE = 1 << 12
"""Raw Q3.12 representation of a feature of 1.0."""
FEATURE_MAX = 32767
"""Largest magnitude of a raw Q3.12 feature (a feature must fit 16 bits for :func:`mul15`)."""
VALUE_ONE = 1 << 16
"""Raw Q15.16 representation of 1.0 (weights, z, u, errors)."""
DOT_ONE = 1 << 13
"""Raw Q18.13 representation of 1.0 (dot products, gradient sums)."""
SIG_POINTS = 65
"""Points of the sigmoid table, at -8, -7.75, ..., 8."""
MAX_SHIFT = 16
"""Largest right shift of a scaled coefficient."""


def mul15(x: np.ndarray | int, c: np.ndarray | int) -> np.ndarray:
    """``floor(x * c / 2**15 + 1/2)`` of int32 ``x`` and ``|c| <= 32767``, elementwise."""
    x = np.asarray(x, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    return (x >> 15) * c + (((x & 0x7FFF) * c + 0x4000) >> 15)


def sat(v: np.ndarray) -> np.ndarray:
    """``v`` clamped to the int32 range (int64 result)."""
    return np.clip(np.asarray(v, dtype=np.int64), INT32_MIN, INT32_MAX)


def smul(x: np.ndarray, coef: tuple[int, int]) -> np.ndarray:
    """``x`` times the scaled coefficient ``coef = (c, s)``: ``mul15(x, c) >> s``."""
    c, s = coef
    return mul15(x, c) >> s


def scaled_coefficient(x: float, name: str = "coefficient") -> tuple[int, int]:
    """The scaled Q0.15 coefficient ``(c, s)`` of ``x``: the smallest shift ``s``
    (at most :data:`MAX_SHIFT`) with ``c = round_half_even(x * 2**(15 + s))`` at least
    ``2**14``, ``c`` clipped to 32767.

    Raises:
        ValueError: ``x`` is not in ``[0, 1)``; use a smaller value, or FP32.
    """
    xf = float(x)
    if not 0.0 <= xf < 1.0:
        raise ValueError(
            f"{name}={xf!r} is outside [0, 1), the range of the INT32 format's scaled "
            f"coefficients; use a {name} below 1, or the FP32 format"
        )
    s = 0
    while s < MAX_SHIFT and xf * 2.0 ** (15 + s) < 2**14:
        s += 1
    return min(round(xf * 2.0 ** (15 + s)), 32767), s


def to_q12(x: np.ndarray) -> np.ndarray:
    """Q3.12 int32 features of float ``x`` (rounded half to even, clipped to +-32767)."""
    raw = np.rint(np.asarray(x, dtype=np.float64) * FEATURE_ONE)
    return np.clip(raw, -FEATURE_MAX, FEATURE_MAX).astype(np.int32)


def from_q16(raw: np.ndarray) -> np.ndarray:
    """Float64 values of Q15.16 raw integers."""
    return np.asarray(raw, dtype=np.float64) / VALUE_ONE


def sigmoid_table_f32() -> np.ndarray:
    """The FP32 sigmoid table: ``float32(1 / (1 + exp(8 - k / 4)))``, k = 0 .. 64."""
    k = np.arange(SIG_POINTS, dtype=np.float64)
    return (1.0 / (1.0 + np.exp(-(k / 4.0 - 8.0)))).astype(np.float32)


def sigmoid_table_q16() -> np.ndarray:
    """The INT32 sigmoid table: the FP32 table's values in Q15.16 (rounded half to even)."""
    k = np.arange(SIG_POINTS, dtype=np.float64)
    return np.rint(VALUE_ONE / (1.0 + np.exp(-(k / 4.0 - 8.0)))).astype(np.int32)


def sigmoid_q(dot: np.ndarray) -> np.ndarray:
    """The INT32 sigmoid of Q18.13 dot products, in Q15.16 (int64), as the DPU computes it."""
    table = sigmoid_table_q16().astype(np.int64)
    d = np.asarray(dot, dtype=np.int64)
    t = np.clip(d + (8 << 13), 0, (16 << 13) - 1)
    k, f = t >> 11, t & 2047
    p = table[k] + (((table[np.minimum(k + 1, SIG_POINTS - 1)] - table[k]) * f) >> 11)
    return np.where(d <= -(8 << 13), table[0], np.where(d >= 8 << 13, table[-1], p))


def sigmoid_f32(dot: np.ndarray) -> np.ndarray:
    """The FP32 sigmoid of float32 dot products as the DPU computes it (float32)."""
    table = sigmoid_table_f32()
    d = np.asarray(dot, dtype=np.float32)
    inside = (d > np.float32(-8)) & (d < np.float32(8))
    safe = np.where(inside, d, np.float32(0))
    t = (safe + np.float32(8)) * np.float32(4)
    k = np.minimum(t.astype(np.int32), SIG_POINTS - 2)
    f = t - k.astype(np.float32)
    rise = table[k + 1] - table[k]
    p = table[k] + f * rise
    return np.where(d <= np.float32(-8), table[0], np.where(d >= np.float32(8), table[-1], p))


def trunc_div(a: np.ndarray, n: int) -> np.ndarray:
    """C's integer division ``a / n`` (rounding toward zero) of int64 arrays by ``n > 0``."""
    a = np.asarray(a, dtype=np.int64)
    return np.sign(a) * (np.abs(a) // int(n))
