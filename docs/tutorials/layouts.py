"""Data layouts and transfers: broadcast, scatter, gather, block and stride layouts,
padding, and the four-phase timing.

Run it from the repository root::

    .venv/bin/python docs/tutorials/layouts.py
"""

# The imports come with the section of the tutorial that first needs them.
# ruff: noqa: E402

# [start-setup]
import numpy as np

import pyupmem as pim

HEAP = pim.DPU_MRAM_HEAP_POINTER_NAME
nr_dpus, n = 64, 1_000_003  # n is not a multiple of anything useful
x = np.random.default_rng(1).integers(-1000, 1000, n, dtype=np.int32)
expected = 3 * x + 7

dpus = pim.DpuSet(nr_dpus)  # freed at the end with dpus.free()
dpus.load(pim.build_program("docs/tutorials/layouts.c", nr_tasklets=16))
dpus.broadcast("a", np.int32(3))  # broadcast: the same bytes to every DPU
dpus.broadcast("b", np.int32(7))
# [end-setup]

# [start-block]
per_dpu = -(-n // nr_dpus)  # ceil(n / nr_dpus) values per DPU ...
per_dpu += per_dpu % 2  # ... rounded up to 8 bytes (2 int32), the MRAM granule
padded = np.zeros(nr_dpus * per_dpu, np.int32)
padded[:n] = x  # the padding: zeros after the last value
counts = np.clip(n - np.arange(nr_dpus) * per_dpu, 0, per_dpu).astype(np.uint32)

# row d holds elements d * per_dpu .. (d + 1) * per_dpu - 1
block = padded.reshape(nr_dpus, per_dpu)
dpus.scatter("nr_values", counts)  # one uint32 per DPU: how many values are real
dpus.scatter(HEAP, block)  # row d to DPU d, without a copy
dpus.launch()
y = dpus.gather(HEAP, np.int32, per_dpu)  # shape (nr_dpus, per_dpu): row d from DPU d
print("block layout right:", np.array_equal(y.reshape(-1)[:n], expected))
print("values per DPU:", counts[0], "... last DPU:", counts[-1])
# [end-block]

# [start-stride]
stride = padded.reshape(per_dpu, nr_dpus).T  # row d: elements d, d + 64, d + 128 ...
dpus.broadcast("nr_values", np.uint32(per_dpu))  # all DPUs: per_dpu values (some zeros)
dpus.scatter(HEAP, stride)  # not contiguous: scatter makes one contiguous copy first
dpus.launch()
y = dpus.gather(HEAP, np.int32, per_dpu)
print("stride layout right:", np.array_equal(y.T.reshape(-1)[:n], expected))
# [end-stride]

# [start-uneven]
shares = np.array_split(x, nr_dpus)  # 15,626 or 15,625 values: uneven sizes
dpus.scatter("nr_values", np.array([len(share) for share in shares], np.uint32))
dpus.scatter(HEAP, shares, pad=True)  # zero-pads every share to the largest, 8-aligned
dpus.launch()
y = dpus.gather(HEAP, np.int32, max(len(share) for share in shares))
result = np.concatenate([row[: len(share)] for row, share in zip(y, shares, strict=True)])
print("uneven shares right:", np.array_equal(result, expected))
# [end-uneven]

# [start-timing]
dpus.scatter("nr_values", counts)
timer = pim.PhaseTimer(warmup=1)
for _ in timer.repetitions(10):
    with timer.phase(pim.CPU_DPU):  # host to DPUs
        dpus.scatter(HEAP, block)
    with timer.phase(pim.DPU_KERNEL):  # the launch
        dpus.launch()
    with timer.phase(pim.INTER_DPU):  # host work between launches
        mean = dpus.gather("total", np.int64, 1).sum() // n
        dpus.broadcast("b", np.int32(7 - mean))  # the next round centres its results
    with timer.phase(pim.DPU_CPU):  # DPUs to host
        y = dpus.gather(HEAP, np.int32, per_dpu)
print(timer.table(title=f"y = 3x + b on {nr_dpus} DPUs, {n:,} values"))
# [end-timing]

# [start-estimate]
dpus.launch(trace=True)  # trace: also record what each tasklet does, in modelled time
estimate = dpus.estimate()
print(f"on hardware: {estimate.seconds * 1e3:.3f} ms for the slowest of "
      f"{len(estimate.cycles)} DPUs")
for activity, seconds in estimate.breakdown().items():  # the slowest DPU, per tasklet
    print(f"  {activity:<8} {seconds * 1e3:7.3f} ms")
timeline = dpus.timeline(0)  # DPU 0's tasklets; timeline.save("t.json") for Perfetto
dma = sum(e.end - e.start for e in timeline.events if e.activity == "dma")
print(f"DPU 0: {len(timeline.events)} stretches, tasklets wait for DMA "
      f"{dma / (16 * timeline.cycles):.0%} of the time")
dpus.free()
# [end-estimate]
