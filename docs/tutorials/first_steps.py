"""First steps: allocate DPUs, build and load a program, move numpy arrays, launch, read logs.

Run it from the repository root::

    .venv/bin/python docs/tutorials/first_steps.py
"""

# The imports come with the section of the tutorial that first needs them.
# ruff: noqa: E402

# [start-backend]
import textwrap

import numpy as np

import pyupmem as pim

backend = pim.find_backend()
print("backend:", backend.kind)
# [end-backend]

# [start-build]
program = pim.build_program("docs/tutorials/first_steps.c", nr_tasklets=4)
print("program:", program.path.name, "built for", program.nr_tasklets, "tasklets")
# [end-build]

# [start-run]
nr_dpus, n = 8, 1024
values = np.arange(nr_dpus * n, dtype=np.int32).reshape(nr_dpus, n)  # row i: DPU i

with pim.DpuSet(nr_dpus) as dpus:
    print("allocated", len(dpus), "DPUs in", dpus.nr_ranks, "rank")
    dpus.load(program)
    dpus.broadcast("factor", np.int32(3))  # the same value to every DPU
    dpus.scatter("values", values)  # one row to each DPU
    dpus.launch()  # runs main() in 4 tasklets on every DPU, waits for all
    result = dpus.gather("values", np.int32, n)  # shape (8, 1024): row i from DPU i
    logs = dpus.logs()  # what each DPU printed

print("result shape:", result.shape, end=", ")
print("equal to values * 3:", np.array_equal(result, values * 3))
print("DPU 5 printed:", logs[5].strip())
# [end-run]

# [start-symbols]
with pim.DpuSet(1) as dpu:
    loaded = dpu.load(program)
    print(loaded["factor"])
    print(loaded["values"])
# [end-symbols]

# [start-errors]
with pim.DpuSet(2) as dpus:
    dpus.load(program)
    try:
        dpus.broadcast("values", np.int32(7))  # 4 bytes into MRAM: not a multiple of 8
    except pim.DpuAccessError as error:
        print("refused by", error.call, "before calling libdpu:", error.before_call)
        print(error.name)
        print(textwrap.fill(error.detail, 80))
# [end-errors]

# [start-async]
seen = []
with pim.DpuSet(nr_dpus) as dpus:
    dpus.load(program)
    dpus.broadcast("factor", np.int32(2))
    dpus.scatter("values", values)
    dpus.launch(asynchronous=True)  # returns at once: the DPUs run
    once = dpus.gather("values", asynchronous=True)  # queued: runs when they are done
    dpus.launch(asynchronous=True)  # queued behind the gather
    twice = dpus.gather("values", asynchronous=True)
    dpus.callback(lambda s: seen.append((int(once[5, 0]), int(twice[5, 0]))))
    dpus.sync()  # waits for the queued work (and raises its first error)
print("DPU 5's first value was", values[5, 0], "then, seen by the callback:", seen[0])
# [end-async]
