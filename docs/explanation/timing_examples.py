"""Examples for the timing page: the estimated hardware time of a vector addition, per
phase and per DPU, beside the emulator's wall time.

Run it from the repository root::

    .venv/bin/python docs/explanation/timing_examples.py
"""

# ruff: noqa: E402

# [start-phases]
import sys
from pathlib import Path

import numpy as np

import pyupmem as pim

sys.path.insert(0, "docs/examples")  # from the repository root
import vecadd  # docs/examples/vecadd.py: its DPU program and how it is built

NR_DPUS, PER_DPU = 64, 1 << 18  # 2**18 int32 per vector per DPU (1 MiB)
program = vecadd.build(nr_tasklets=16)
a = np.ones((NR_DPUS, PER_DPU), np.int32)
b = np.full((NR_DPUS, PER_DPU), 2, np.int32)
with pim.DpuSet(NR_DPUS) as dpus:
    dpus.load(program)
    timer = pim.PhaseTimer(warmup=1, dpus=dpus)  # dpus: also record estimates
    for _ in timer.repetitions(3):
        with timer.phase(pim.CPU_DPU):
            dpus.broadcast("nr_bytes", np.uint32(PER_DPU * 4))
            dpus.scatter(vecadd.HEAP, a)
            dpus.scatter(vecadd.HEAP, b, offset=PER_DPU * 4)
        with timer.phase(pim.DPU_KERNEL):
            dpus.launch()
        with timer.phase(pim.DPU_CPU):
            c = dpus.gather(vecadd.HEAP, np.int32, PER_DPU, offset=2 * PER_DPU * 4)
    assert (c == 3).all()
    print(timer.table(title="vector addition, 64 DPUs x 16 tasklets, 1 MiB per vector per DPU"))
    estimate = dpus.estimate()  # the last launch, per DPU
    print(f"kernel: {estimate.seconds * 1e3:.3f} ms on hardware (modelled, "
          f"{int(estimate.cycles.max())} cycles at {estimate.clock_hz / 1e6:.0f} MHz)")
# [end-phases]

# [start-breakdown]
HISTOGRAM = pim.build_program("benchmarks/timing/workloads.c", nr_tasklets=16,
                              defines={"WORKLOAD_HISTOGRAM": None}, name="histogram")
values = np.random.default_rng(0).integers(0, 4096, 1 << 12).astype(np.uint32)
with pim.DpuSet(1) as dpus:
    dpus.load(HISTOGRAM)
    dpus.broadcast("input", values)
    dpus.broadcast("elements", np.uint32(len(values)))
    dpus.launch(trace=True)  # also record what each tasklet does, for the timeline
    estimate = dpus.estimate()
    timeline = dpus.timeline(0)
print(f"histogram of {len(values):,} values, one mutex: {estimate.seconds * 1e3:.3f} ms")
for activity, seconds in estimate.breakdown().items():
    print(f"  {activity:<8} {seconds * 1e3:8.3f} ms")
print(f"timeline: {len(timeline.events)} stretches on {len(timeline.tasklets)} tasklets, "
      f"{timeline.dropped} dropped")
# [end-breakdown]

# [start-timeline]
# The figure's folder: the first argument, else the docs' own (from the repository root).
out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/_static/timing")
out.mkdir(parents=True, exist_ok=True)
timeline.save(out / "histogram_trace.json")  # open it in ui.perfetto.dev or chrome://tracing
ax = timeline.plot(title="histogram, one mutex, 16 tasklets: DPU 0")
ax.set_xlim(0, 0.05)  # the first 50 microseconds
ax.figure.savefig(out / "timeline.png", dpi=110)
# [end-timeline]

# [start-environment]
import os
import subprocess

HOST = """
import numpy as np, pyupmem as pim
program = pim.build_program("docs/examples/vecadd.c", nr_tasklets=16)
with pim.DpuSet(4) as dpus:
    dpus.load(program)
    dpus.broadcast("nr_bytes", np.uint32(4096))
    dpus.scatter(pim.DPU_MRAM_HEAP_POINTER_NAME, np.ones((4, 2048), np.int32))
    dpus.launch()
    dpus.gather(pim.DPU_MRAM_HEAP_POINTER_NAME, np.int32, 1024, offset=8192)
"""
result = subprocess.run([sys.executable, "-c", HOST], capture_output=True, text=True,
                        env={**os.environ, "PYUPMEM_EMU_TIMING": "1"}, check=True)
print(result.stderr, end="")
# [end-environment]
