"""The INT32 fixed-point format of the INT32 learners, defined bit for bit.

* **Values** (Q-values, rewards) are **Q15.16**: a value ``v`` is stored as the int32
  ``raw = v * 65536``; the range is ``[-32768, 32768 - 2**-16]``, the step ``2**-16``.
* **Coefficients** (learning rate alpha, discount gamma) are **Q0.15**: ``x`` in
  ``[0, 1)`` is stored as ``c = round_half_even(x * 32768)`` clipped to
  ``[0, 32767]``.
* :func:`mul` multiplies a Q15.16 value by a Q0.15 coefficient with 32-bit integer
  operations only, rounding half up (towards +infinity) exactly, and never overflows.
* :func:`sat_add` and :func:`sat_sub` give the exact sum or difference clamped to
  ``[INT32_MIN, INT32_MAX]``.

In C (``int32_t x``, ``int32_t c`` with ``0 <= c <= 32767``, arithmetic ``>>``)::

    (x >> 15) * c + ((((x & 0x7FFF) * c) + 0x4000) >> 15)

The scalar functions take and return Python ints; the ``*_array`` variants do the same
on numpy integer arrays (computed in int64, returned as int64).
"""

from __future__ import annotations

import numpy as np

INT32_MIN = -(2**31)  #: smallest int32
INT32_MAX = 2**31 - 1  #: largest int32
VALUE_ONE = 1 << 16  #: raw Q15.16 representation of 1.0
COEF_ONE = 1 << 15  #: 2**15, the Q0.15 scale (1.0 itself is not representable)
COEF_MAX = COEF_ONE - 1  #: largest Q0.15 coefficient, 32767


def _num(x) -> str:
    """A number as a user would write it (``1.5``, not ``np.float64(1.5)``)."""
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    try:
        return repr(float(x))
    except (TypeError, ValueError):
        return str(x)


def coefficient(x: float, name: str = "coefficient") -> int:
    """Q0.15 coefficient of ``x``: ``round_half_even(x * 32768)`` clipped to [0, 32767].

    Raises:
        ValueError: ``x`` is not in ``[0, 1)`` (the INT32 format cannot represent 1.0;
            use a value below 1, or the FP32 format).
    """
    xf = float(x)
    if not (0.0 <= xf < 1.0):
        raise ValueError(
            f"{name}={_num(x)} is outside [0, 1), the range of the INT32 format's Q0.15 "
            f"coefficients; use a {name} below 1 (e.g. 0.99), or the FP32 format"
        )
    return min(max(round(xf * COEF_ONE), 0), COEF_MAX)


def mul(x: int, c: int) -> int:
    """Q15.16 ``x`` times Q0.15 ``c``: exactly ``floor(x * c / 2**15 + 1/2)``.

    ``(x >> 15) * c + (((x & 0x7FFF) * c + 0x4000) >> 15)``; for int32 ``x`` and
    ``0 <= c <= 32767`` every intermediate fits in 32 bits.
    """
    return (x >> 15) * c + (((x & 0x7FFF) * c + 0x4000) >> 15)


def sat(v: int) -> int:
    """``v`` clamped to ``[INT32_MIN, INT32_MAX]``."""
    return INT32_MIN if v < INT32_MIN else INT32_MAX if v > INT32_MAX else v


def sat_add(a: int, b: int) -> int:
    """Saturating int32 addition: the exact ``a + b`` clamped to the int32 range."""
    return sat(a + b)


def sat_sub(a: int, b: int) -> int:
    """Saturating int32 subtraction: the exact ``a - b`` clamped to the int32 range."""
    return sat(a - b)


def mul_array(x: np.ndarray, c: int | np.ndarray) -> np.ndarray:
    """:func:`mul` elementwise on integer arrays (int64 result)."""
    x = np.asarray(x, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    return (x >> 15) * c + (((x & 0x7FFF) * c + 0x4000) >> 15)


def sat_add_array(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`sat_add` elementwise on integer arrays (int64 result)."""
    return np.clip(np.asarray(a, np.int64) + np.asarray(b, np.int64), INT32_MIN, INT32_MAX)


def sat_sub_array(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`sat_sub` elementwise on integer arrays (int64 result)."""
    return np.clip(np.asarray(a, np.int64) - np.asarray(b, np.int64), INT32_MIN, INT32_MAX)


def to_q16(values: np.ndarray | float, name: str = "values") -> np.ndarray:
    """Q15.16 int32 array of float ``values``: ``round_half_even(v * 65536)``.

    Raises:
        ValueError: a value is not finite or falls outside the Q15.16 range
            ``[-32768, 32768)``; scale the values down (e.g. the rewards) to fit.
    """
    v = np.asarray(values, dtype=np.float64)
    raw = np.rint(v * VALUE_ONE)
    bad = ~np.isfinite(raw) | (raw < INT32_MIN) | (raw > INT32_MAX)
    if np.any(bad):
        first = v.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]]
        raise ValueError(
            f"{name} contain {_num(first)}, which the Q15.16 format of INT32 cannot hold "
            f"(range [-32768, 32768)); rescale them, or use the FP32 format"
        )
    return raw.astype(np.int32)


def from_q16(raw: np.ndarray | int) -> np.ndarray:
    """Float64 values of Q15.16 raw integers (exact: ``raw / 65536``)."""
    return np.asarray(raw, dtype=np.float64) / VALUE_ONE


def scaled_to_q16(values: np.ndarray, scale: int, name: str = "rewards") -> np.ndarray:
    """Q15.16 int32 of integers ``values / scale``, rounded half to even, exactly.

    This is how dataset rewards (integers with a ``reward_scale``) become INT32 rewards;
    the arithmetic is exact integer arithmetic, with no float rounding.

    Raises:
        ValueError: ``scale`` is not positive, or a reward falls outside the Q15.16 range.
    """
    if int(scale) <= 0:
        raise ValueError(f"reward_scale must be a positive integer, not {scale!r}")
    num = np.asarray(values, dtype=np.int64) * VALUE_ONE
    scale = int(scale)
    if scale == 1:
        out = num
    else:
        q, rem = np.divmod(num, scale)  # floor division, 0 <= rem < scale
        twice = 2 * rem
        up = (twice > scale) | ((twice == scale) & (q % 2 == 1))
        out = q + up
    bad = (out < INT32_MIN) | (out > INT32_MAX)
    if np.any(bad):
        i = int(np.flatnonzero(bad.reshape(-1))[0])
        first = np.asarray(values).reshape(-1)[i] / scale
        raise ValueError(
            f"{name} contain {_num(first)}, which the Q15.16 format of INT32 cannot hold "
            f"(range [-32768, 32768)); rescale the rewards, or use the FP32 format"
        )
    return out.astype(np.int32)


def scaled_to_f32(values: np.ndarray, scale: int) -> np.ndarray:
    """Float32 of integers ``values / scale``: ``float32(float64(v) / float64(scale))``.

    This is how dataset rewards become FP32 rewards (the host does it and sends the
    float32 values to the DPUs).
    """
    if int(scale) <= 0:
        raise ValueError(f"reward_scale must be a positive integer, not {scale!r}")
    return (np.asarray(values, dtype=np.float64) / np.float64(scale)).astype(np.float32)
