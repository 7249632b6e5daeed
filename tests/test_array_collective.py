"""a[mask], histogram and W @ x against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from array_support import data, dpu_counts, dtypes, sizes, tasklets
from hypothesis import given, settings
from hypothesis import strategies as st

import pyupmem as pim
import pyupmem.array as pa
from pyupmem.errors import UnsupportedError


@settings(max_examples=25, deadline=None)
@given(dtype=dtypes, n=sizes, nr_dpus=dpu_counts, nr_tasklets=tasklets,
       density=st.sampled_from([0.0, 0.1, 0.5, 1.0]))
def test_selection_keeps_order(dtype, n, nr_dpus, nr_tasklets, density):
    x = data(dtype, n, seed=n)
    keep = np.random.default_rng(n).random(n) < density
    with pim.DpuSet(nr_dpus) as dpus, pa.settings(nr_tasklets=nr_tasklets):
        a, mask = pa.asarray(x, dpus), pa.asarray(keep, dpus)
        result = a[mask]
        assert result.dtype == dtype and result.dpus is dpus
        np.testing.assert_array_equal(result.get(), x[keep])


@settings(max_examples=25, deadline=None)
@given(dtype=dtypes, n=sizes, nr_dpus=dpu_counts, nr_tasklets=tasklets,
       bins=st.sampled_from([1, 2, 7, 10, 64, 256]),
       bounds=st.sampled_from([None, (-10, 10), (0, 1), (-1e3, 2.5e3), (3, 3)]))
@pytest.mark.filterwarnings("ignore:Converting input from bool")
def test_histogram_matches_numpy(dtype, n, nr_dpus, nr_tasklets, bins, bounds):
    x = data(dtype, n, seed=n + 5, special=False)
    try:
        expected = np.histogram(x, bins, range=bounds)
    except ValueError:  # NumPy cannot make the edges (int64's whole range in one bin ...)
        with pim.DpuSet(nr_dpus) as dpus, pytest.raises(ValueError):
            pa.histogram(pa.asarray(x, dpus), bins, range=bounds)
        return
    with pim.DpuSet(nr_dpus) as dpus, pa.settings(nr_tasklets=nr_tasklets):
        counts, edges = pa.histogram(pa.asarray(x, dpus), bins, range=bounds)
    assert counts.dtype == expected[0].dtype and edges.dtype == expected[1].dtype
    np.testing.assert_array_equal(counts, expected[0])
    np.testing.assert_array_equal(edges, expected[1])


def test_histogram_counts_the_right_edge_and_skips_nan_and_outsiders():
    x = np.array([0.0, 1.0, 0.5, np.nan, -1.0, 2.0, 0.999999], dtype=np.float64)
    with pim.DpuSet(3) as dpus:
        counts, edges = pa.histogram(pa.asarray(x, dpus), 4, range=(0.0, 1.0))
    np.testing.assert_array_equal(counts, np.histogram(x, 4, range=(0.0, 1.0))[0])
    with pim.DpuSet(1) as dpus, pytest.raises(UnsupportedError, match="number of equal bins"):
        pa.histogram(pa.asarray(x, dpus), [0, 1, 2])


@settings(max_examples=20, deadline=None)
@given(dtype=st.sampled_from([np.int8, np.int32, np.float32]),
       rows=st.sampled_from([0, 1, 2, 7, 61, 257]), cols=st.sampled_from([0, 1, 3, 8, 13, 2049]),
       nr_dpus=dpu_counts, nr_tasklets=tasklets)
def test_matrix_vector_product(dtype, rows, cols, nr_dpus, nr_tasklets):
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(rows * cols)
    if dtype.kind == "f":
        w = rng.standard_normal((rows, cols)).astype(dtype)
        x = rng.standard_normal(cols).astype(dtype)
    else:
        info = np.iinfo(dtype)
        w = rng.integers(info.min, info.max, (rows, cols), dtype=dtype, endpoint=True)
        x = rng.integers(info.min, info.max, cols, dtype=dtype, endpoint=True)
    with pim.DpuSet(nr_dpus) as dpus, pa.settings(nr_tasklets=nr_tasklets):
        y = pa.asarray(w, dpus) @ x
        result = y.get()
    if dtype == np.int8:
        expected = w.astype(np.int32) @ x.astype(np.int32)
    else:
        expected = w @ x
    assert y.dtype == expected.dtype and y.shape == (rows,)
    if dtype.kind == "f":
        np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-3 * np.sqrt(cols))
    else:
        np.testing.assert_array_equal(result, expected)


def test_matvec_refuses_other_types_with_the_fix():
    with pim.DpuSet(2) as dpus:
        w = pa.asarray(np.zeros((3, 4), np.int16), dpus)
        with pytest.raises(UnsupportedError, match="int8, int32 and float32"):
            w @ np.zeros(4, np.int16)
        with pytest.raises(ValueError, match="shape"):
            pa.asarray(np.zeros((3, 4), np.int8), dpus) @ np.zeros(5, np.int8)


def test_selection_stays_on_the_dpus_and_feeds_further_operations():
    x = np.arange(1000, dtype=np.int16)
    keep = x % 7 == 3
    with pim.DpuSet(6) as dpus:
        a = pa.asarray(x, dpus)
        picked = a[pa.asarray(keep, dpus)]
        per = -(-1000 // 6)
        assert picked.counts.tolist() == [
            int(np.count_nonzero(keep[i * per : (i + 1) * per])) for i in range(6)
        ]
        assert (picked * 2).sum() == (x[keep] * 2).sum()
        np.testing.assert_array_equal(picked[picked > 500].get(), x[keep][x[keep] > 500])
        np.testing.assert_array_equal(pa.cumsum(picked).get(), np.cumsum(x[keep]))


@pytest.mark.parametrize("nr_tasklets", [1, 3, 16])
def test_selection_over_shares_that_fill_a_tasklet_s_buffer_many_times(nr_tasklets):
    # a tasklet writes what it gathered in several pieces, its first word shared with the
    # tasklet before it at every item size
    n = 30011
    keep = np.random.default_rng(2).random(n) < 0.9
    with pim.DpuSet(2) as dpus, pa.settings(nr_tasklets=nr_tasklets):
        mask = pa.asarray(keep, dpus)
        for dtype in ("bool", "int8", "int16", "int32", "float32", "int64", "float64"):
            x = data(np.dtype(dtype), n, seed=3)
            result = pa.asarray(x, dpus)[mask].get()
            np.testing.assert_array_equal(result, x[keep])
