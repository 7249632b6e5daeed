"""What the tests of pyupmem.array share: dtypes, awkward sizes, data like NumPy users'."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

DTYPES = [np.dtype(t) for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float32", "float64")]
INTEGERS = [d for d in DTYPES if d.kind in "iu"]
# sizes that divide nothing: empty, one, primes, one past a 2,048-byte block of int8 and
# of int32
SIZES = [0, 1, 2, 7, 13, 61, 257, 513, 2049, 4099]
DPU_COUNTS = [1, 2, 3, 7, 64, 256]
TASKLETS = [1, 3, 11, 16, 24]

dtypes = st.sampled_from(DTYPES)
sizes = st.sampled_from(SIZES)
dpu_counts = st.sampled_from(DPU_COUNTS)
tasklets = st.sampled_from(TASKLETS)


def data(dtype: np.dtype, n: int, seed: int, special: bool = True) -> np.ndarray:
    """``n`` values of ``dtype`` over its whole range (integers), or floats of mixed
    magnitudes with, if ``special``, zeros of both signs, infinities and NaN among them."""
    rng = np.random.default_rng(seed)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        small = rng.integers(-3 if dtype.kind == "i" else 0, 4, n).astype(dtype)
        return np.where(rng.random(n) < 0.3, small, values)
    values = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dtype)
    if special and n:
        picks = rng.integers(0, n, max(n // 10, 1))
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype)
        values[picks] = rng.choice(specials, len(picks))
    return values
