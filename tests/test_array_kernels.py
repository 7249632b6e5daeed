"""ElementwiseKernel and RawKernel: CuPy's signatures, a user's DPU function."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from array_support import data, dpu_counts, dtypes, sizes
from hypothesis import given, settings

import pyupmem as pim
import pyupmem.array as pa
from pyupmem.errors import UnsupportedError


@settings(max_examples=15, deadline=None)
@given(dtype=dtypes, n=sizes, nr_dpus=dpu_counts)
def test_elementwise_kernel_binds_t_and_sees_the_index(dtype, n, nr_dpus):
    x = data(dtype, n, seed=n, special=False)
    kernel = pa.ElementwiseKernel("T x, T y", "T z, int64 k", "z = x > y ? x : y; k = i * 2",
                                  "larger")
    with pim.DpuSet(nr_dpus) as dpus:
        z, k = kernel(pa.asarray(x, dpus), 1)
        assert z.dtype == dtype and k.dtype == np.int64
        np.testing.assert_array_equal(z.get(), np.where(x > dtype.type(1), x, dtype.type(1)))
        np.testing.assert_array_equal(k.get(), np.arange(n) * 2)


def test_elementwise_kernel_writes_given_outputs_and_uses_a_preamble():
    kernel = pa.ElementwiseKernel("float32 x", "float32 y", "y = square(x) + 1.0f", "sq1",
                                  preamble="static inline float square(float v) { return v * v; }")
    with pim.DpuSet(4) as dpus:
        x = pa.asarray(np.arange(100, dtype=np.float32), dpus)
        out = pa.empty(x.shape, np.float32, dpus)
        assert kernel(x, out) is out
        np.testing.assert_array_equal(out.get(), np.arange(100, dtype=np.float32) ** 2 + 1)
        with pytest.raises(TypeError, match="astype"):
            kernel(pa.asarray(np.arange(100), dpus))
    with pytest.raises(UnsupportedError, match="RawKernel"):
        pa.ElementwiseKernel("raw T x", "T y", "y = x[0]", "bad")
    with pytest.raises(ValueError, match="'type name'"):
        pa.ElementwiseKernel("x", "T y", "y = x", "bad")


def test_raw_kernel_docstring_example_runs_as_written():
    text = inspect.getdoc(pa.RawKernel)
    example = text[text.index("import numpy"): text.index("Args:")]
    namespace: dict = {}
    exec(inspect.cleandoc(example), namespace)  # the example asserts its own result


def test_raw_kernel_gets_offsets_counts_and_scalars_through_the_host_block():
    source = r"""
    void fill(pim_array out, int64_t base)
    {
        int64_t *buffer = mem_alloc(2048);
        if (me() != 0) return;
        for (uint32_t start = 0; start < out.count; start += 256) {
            uint32_t n = out.count - start < 256 ? out.count - start : 256;
            for (uint32_t k = 0; k < n; k++)
                buffer[k] = base + (int64_t)(out.first + start + k) + (int64_t)out.size;
            mram_write(buffer, PIM_MRAM(out.offset + start * 8), n * 8);
        }
    }
    """
    kernel = pa.RawKernel(source, "fill")
    with pim.DpuSet(7) as dpus:
        out = pa.empty((1000,), np.int64, dpus)
        kernel(out, 5, nr_tasklets=4)
        np.testing.assert_array_equal(out.get(), 5 + np.arange(1000) + 1000)
        with pytest.raises(TypeError, match="scalar"):
            kernel(out, out)
    with pytest.raises(ValueError, match="defines no function"):
        pa.RawKernel(source, "missing")
