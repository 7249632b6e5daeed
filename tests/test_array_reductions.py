"""sum, min, max, mean, cumsum and ReductionKernel against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from array_support import data, dpu_counts, dtypes, sizes, tasklets
from hypothesis import given, settings

import pyupmem as pim
import pyupmem.array as pa


def close(result, expected, scale=0.0):
    """Integers exactly; floats up to the summation order (NumPy adds pairwise): relative
    to the result and to ``scale``, the sum of the magnitudes added."""
    assert np.asarray(result).dtype == np.asarray(expected).dtype
    if np.asarray(expected).dtype.kind == "f":
        rtol = 1e-5 if expected.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(result, expected, rtol=rtol, atol=rtol * scale,
                                   equal_nan=True)
    else:
        assert result == expected


@settings(max_examples=20, deadline=None)
@given(dtype=dtypes, n=sizes, nr_dpus=dpu_counts, nr_tasklets=tasklets)
def test_reductions_match_numpy(dtype, n, nr_dpus, nr_tasklets):
    x = data(dtype, n, seed=n, special=False)
    with pim.DpuSet(nr_dpus) as dpus, pa.settings(nr_tasklets=nr_tasklets):
        a = pa.asarray(x, dpus)
        magnitude = float(np.abs(x.astype(np.float64)).sum())
        close(a.sum(), x.sum(), magnitude)
        if n:
            close(a.mean(), x.mean(), magnitude / n)
        if n:
            assert a.min() == x.min() and a.max() == x.max()
            assert type(a.min()) is type(x.min())
        else:
            for method in (a.min, a.max):
                with pytest.raises(ValueError, match="zero-size"):
                    method()


def test_min_and_max_propagate_nan_and_float_sums_are_close():
    x = np.linspace(0, 5, 3001).astype(np.float32)
    with pim.DpuSet(5) as dpus:
        a = pa.asarray(x, dpus)
        close(a.sum(), x.sum().astype(np.float32))
        close(a.mean(), x.mean())
        x[1234] = np.nan
        b = pa.asarray(x, dpus)
        assert np.isnan(b.min()) and np.isnan(b.max())


@settings(max_examples=25, deadline=None)
@given(dtype=dtypes, n=sizes, nr_dpus=dpu_counts, nr_tasklets=tasklets)
def test_cumsum_is_an_inclusive_scan_across_dpus(dtype, n, nr_dpus, nr_tasklets):
    x = data(dtype, n, seed=n + 1, special=False)
    if dtype.kind == "f":
        x = np.abs(x)  # no cancellation: float sums in another order stay close
    with pim.DpuSet(nr_dpus) as dpus, pa.settings(nr_tasklets=nr_tasklets):
        result = pa.cumsum(pa.asarray(x, dpus))
        expected = np.cumsum(x)
        assert result.dtype == expected.dtype and result.shape == expected.shape
        if dtype.kind == "f":
            np.testing.assert_allclose(result.get(), expected, rtol=1e-4)
        else:
            np.testing.assert_array_equal(result.get(), expected)


@settings(max_examples=15, deadline=None)
@given(dtype=dtypes, n=sizes, nr_dpus=dpu_counts)
def test_reduction_kernel_with_cupy_signature(dtype, n, nr_dpus):
    x = data(dtype, n, seed=n + 2, special=False)
    if dtype.kind == "f":
        x = np.abs(x)
    squares = pa.ReductionKernel("T x", "float64 y", "(double)x * (double)x", "a + b",
                                 "y = a / (_in_ind.size() ? _in_ind.size() : 1)", "0",
                                 "mean_square")
    largest = pa.ReductionKernel("T x, T shift", "T y", "x + shift", "max(a, b)", "y = a",
                                 "0" if dtype.kind in "bu" else "x", "largest",
                                 reduce_type=None)
    with pim.DpuSet(nr_dpus) as dpus:
        a = pa.asarray(x, dpus)
        expected = (x.astype(np.float64) ** 2).sum() / max(n, 1)
        np.testing.assert_allclose(squares(a), expected, rtol=1e-12)
        if n and dtype.kind in "bu":
            assert largest(a, 0) == x.max()


def test_reduction_kernel_reduces_any_associative_expression_in_a_fixed_order():
    x = np.arange(1, 5000, dtype=np.uint32)
    xor = pa.ReductionKernel("T x", "T y", "x * 2654435761u", "a ^ b", "y = a", "0", "xor")
    with pim.DpuSet(9) as dpus:
        a = pa.asarray(x, dpus)
        expected = np.bitwise_xor.reduce(x * np.uint32(2654435761))
        assert xor(a) == expected and xor(a).dtype == np.uint32
