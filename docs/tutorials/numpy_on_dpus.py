"""NumPy on DPUs: arrays in MRAM, NumPy's operators on them, kernels from one line of C,
a hand-written DPU program on the same arrays, and the estimate against NumPy.

Run it from the repository root: ``.venv/bin/python docs/tutorials/numpy_on_dpus.py``.
"""

# The imports come with the section of the tutorial that first needs them.
# ruff: noqa: E402

# [start-arrays]
import numpy as np

import pyupmem as pim
import pyupmem.array as pa

dpus = pim.DpuSet(64)
x = np.arange(1_000_000, dtype=np.int32)
a = pa.asarray(x, dpus)  # one contiguous share per DPU, in MRAM
print(a)
print("elements per DPU:", a.counts[:2], "...", a.counts[-2:], "at MRAM address", hex(a.offset))
# [end-arrays]

# [start-operators]
b = (a * 3 + 1) % 7  # three generated kernels, each launched on the 64 DPUs
print(b.dtype, b.get()[:8], "same as NumPy:", np.array_equal(b.get(), (x * 3 + 1) % 7))

small = pa.asarray(np.array([-7, 7, 100, -128], dtype=np.int8), dpus)
print("int8 // 2:", (small // 2).get(), " * 2:", (small * 2).get(), " / 2:", (small / 2).dtype)
print("sum", a.sum(), "max", a.max(), "mean", a.mean())
print("running sum, last three:", pa.cumsum(a).get()[-3:])
odd = a[a % 2 == 1]
print("odd values:", odd.size, odd.get()[:4])
counts, edges = pa.histogram(a, 4, range=(0, 1_000_000))
print("histogram:", counts, edges)
# [end-operators]

# [start-kernels]
squared_diff = pa.ElementwiseKernel(
    "T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff"
)
print("squared_diff:", squared_diff(a, 10).get()[:5])
l1_norm = pa.ReductionKernel(
    "T x", "int64 y", "x < 0 ? -(int64_t)x : (int64_t)x", "a + b", "y = a", "0", "l1_norm"
)
print("L1 norm of a - 500000:", l1_norm(a - 500_000))
# [end-kernels]

# [start-raw]
source = r"""
#define BLOCK 256 /* elements per DMA: 1,024 bytes */

void clip(pim_array x, pim_array y, int32_t limit)
{
    int32_t *buffer = mem_alloc(BLOCK * sizeof(int32_t));
    for (uint32_t start = me() * BLOCK; start < x.count; start += NR_TASKLETS * BLOCK) {
        uint32_t n = x.count - start < BLOCK ? x.count - start : BLOCK;
        uint32_t bytes = (n * sizeof(int32_t) + 7) & ~7u; /* DMAs move 8-byte units */
        mram_read(PIM_MRAM(x.offset + start * sizeof(int32_t)), buffer, bytes);
        for (uint32_t k = 0; k < n; k++)
            buffer[k] = buffer[k] > limit ? limit : buffer[k];
        mram_write(buffer, PIM_MRAM(y.offset + start * sizeof(int32_t)), bytes);
    }
}
"""
clip = pa.RawKernel(source, "clip")
y = pa.empty(a.shape, np.int32, dpus)
clip(a, y, 10)
print("clipped:", y.get()[8:14], "the sum of the clipped:", y.sum())
# [end-raw]

# [start-estimate]
import time

timer = pim.PhaseTimer(warmup=1, dpus=dpus)
with pa.settings(timer=timer):
    for _ in timer.repetitions(3):  # the warm-up run builds the kernels
        total = (pa.asarray(x, dpus) * 2 + a).sum()
print("result:", total)
print(timer.table(unit="ms", title="(2 * x + a).sum(): emulated and estimated time per phase"))
start = time.perf_counter()
expected = (x * 2 + x).sum()
numpy_ms = (time.perf_counter() - start) * 1e3
hardware_ms = sum(min(timer.estimates(phase)) for phase in pim.PHASES) * 1e3
print(f"NumPy on this CPU: {numpy_ms:.3f} ms; estimated on 64 DPUs: {hardware_ms:.3f} ms")
dpus.free()
# [end-estimate]
