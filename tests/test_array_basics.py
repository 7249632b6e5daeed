"""PimArray: sending and bringing back, shares and offsets, the MRAM allocator, phases."""

from __future__ import annotations

import gc

import numpy as np
import pytest
from array_support import DTYPES, data, dpu_counts, dtypes, sizes
from hypothesis import given, settings

import pyupmem as pim
import pyupmem.array as pa
from pyupmem.array.allocator import MramAllocationError, MramAllocator, find_allocator
from pyupmem.array.launching import _PROGRAMS


@settings(max_examples=20, deadline=None)
@given(dtype=dtypes, n=sizes, nr_dpus=dpu_counts)
def test_asarray_get_round_trip_with_shares_split_as_prim_does(dtype, n, nr_dpus):
    values = data(dtype, n, seed=n)
    with pim.DpuSet(nr_dpus) as dpus:
        a = pa.asarray(values, dpus)
        assert (a.shape, a.dtype, a.size, a.nbytes, a.dpus) == ((n,), dtype, n, values.nbytes, dpus)
        per = -(-n // nr_dpus)
        assert a.counts.tolist() == [max(0, min(per, n - i * per)) for i in range(nr_dpus)]
        assert a.offset % 8 == 0 and a.offset >= pa.allocator.MRAM_BASE
        np.testing.assert_array_equal(a.get(), values)
        np.testing.assert_array_equal(pa.asnumpy(a), values)
        assert pa.asarray(a, dpus) is a


@settings(max_examples=10, deadline=None)
@given(dtype=dtypes, rows=sizes, nr_dpus=dpu_counts)
def test_two_dimensional_arrays_are_split_by_rows(dtype, rows, nr_dpus):
    values = data(dtype, rows * 3, seed=rows).reshape(rows, 3)
    with pim.DpuSet(nr_dpus) as dpus:
        a = pa.asarray(values, dpus)
        assert a.shape == (rows, 3) and a.counts.sum() == rows
        np.testing.assert_array_equal(a.get(), values)


def test_a_hand_written_kernel_reads_a_share_at_offset_for_counts():
    source = r"""
    #include <defs.h>
    #include <mram.h>
    #include <stdint.h>
    __host uint32_t offset, count;
    __host int64_t total;
    int main(void) {
        int64_t buffer[1];
        int64_t sum = 0;
        for (uint32_t k = 0; k < count; k++) {
            mram_read((__mram_ptr void const *)(uintptr_t)(offset + 8 * k), buffer, 8);
            sum += buffer[0];
        }
        total = sum;
        return 0;
    }
    """
    program = pim.build_program(source, nr_tasklets=1)
    with pim.DpuSet(3) as dpus:
        a = pa.asarray(np.arange(10, dtype=np.int64), dpus)
        dpus.load(program)
        dpus.broadcast("offset", np.uint32(a.offset))
        dpus.scatter("count", a.counts.astype(np.uint32))
        dpus.launch()
        assert dpus.gather("total").tolist() == [0 + 1 + 2 + 3, 4 + 5 + 6 + 7, 8 + 9]


def test_allocator_first_fit_merges_freed_neighbours_and_reports_owners():
    allocator = MramAllocator(0x1000, 100)
    assert allocator.capacity == 96
    first = allocator.allocate(30, "a")  # 32 bytes
    second = allocator.allocate(8, "b")
    third = allocator.allocate(56, "c")
    assert (first, second, third) == (0x1000, 0x1020, 0x1028)
    with pytest.raises(MramAllocationError) as caught:
        allocator.allocate(8, "d")
    message = str(caught.value)
    assert "96 bytes" not in message and "0.00 MiB" in message
    assert all(name in message for name in ("a:", "b:", "c:", "del a", "more DPUs"))
    assert caught.value.requested == 8 and caught.value.in_use == 96
    assert isinstance(caught.value, MemoryError)
    allocator.free(first)
    allocator.free(second)
    assert allocator.allocate(40, "e") == 0x1000  # the two freed ranges, merged
    assert allocator.allocate(0, "empty") == 0x1000 and allocator.in_use == 96


def test_out_of_mram_is_a_typed_error_naming_the_arrays_and_garbage_gives_memory_back():
    with pim.DpuSet(1) as dpus:
        big = pa.empty((40 << 20,), np.uint8, dpus)
        held = r"PimArray uint8 \(41943040,\): 40.00 MiB"
        with pytest.raises(pa.MramAllocationError, match=held):
            pa.empty((30 << 20,), np.uint8, dpus)
        allocator = find_allocator(dpus)
        assert allocator.in_use == 40 << 20
        del big
        gc.collect()
        assert allocator.in_use == 0
        other = pa.empty((30 << 20,), np.uint8, dpus)
        other.free()
        other.free()  # twice is safe
        assert other.freed and allocator.in_use == 0
        with pytest.raises(ValueError, match="was freed"):
            other.get()


def test_bad_input_is_refused_with_the_fix():
    with pim.DpuSet(2) as dpus:
        with pytest.raises(TypeError, match="complex"):
            pa.asarray(np.zeros(4, np.complex64), dpus)
        with pytest.raises(ValueError, match="1-D or 2-D"):
            pa.asarray(np.zeros((2, 2, 2)), dpus)
        with pytest.raises(TypeError, match="DpuSet"):
            pa.asarray(np.zeros(4), dpus[0])
        a = pa.asarray(np.zeros(4, np.int32), dpus)
        with pytest.raises(ValueError, match="shared over the DPUs"):
            a + pa.asarray(np.zeros(5, np.int32), dpus)
        with pytest.raises(TypeError):
            a + np.zeros(4, np.int32)  # a host array: send it first


def test_operations_land_in_the_four_phases_with_estimates_and_the_build_cache():
    with pim.DpuSet(4) as dpus:
        timer = pim.PhaseTimer(warmup=0, dpus=dpus)
        with pa.settings(timer=timer, nr_tasklets=8):
            a = pa.asarray(np.arange(1000, dtype=np.int32), dpus)
            total = (a * 2).sum()
            back = pa.cumsum(a).get()
        assert total == 999 * 1000 and back[-1] == 999 * 500
        for phase in pim.PHASES:
            assert timer.samples(phase), phase
            assert all(e >= 0 for e in timer.estimates(phase))
        assert sum(timer.estimates(pim.DPU_KERNEL)) > 0 and sum(timer.estimates(pim.CPU_DPU)) > 0
        assert dpus.estimate().seconds > 0
    assert _PROGRAMS and all(
        isinstance(p, pim.Program) and "programs" in str(p.path) for p in _PROGRAMS.values()
    )
    with pytest.raises(ValueError, match="1..24"):
        with pa.settings(nr_tasklets=25):
            pass


def test_every_dtype_is_held_and_pyupmem_exports_pimarray():
    assert pim.PimArray is pa.PimArray
    with pim.DpuSet(2) as dpus:
        for dtype in DTYPES:
            values = data(dtype, 9, seed=1)
            np.testing.assert_array_equal(pa.asarray(values, dpus).get(), values)
