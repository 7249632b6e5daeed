"""Writing DPU programs: tasklets, WRAM and MRAM, mram_read, barriers, mutexes, mem_alloc,
printf, and building them from Python.

Run it from the repository root::

    .venv/bin/python docs/tutorials/dpu_programs.py
"""

# The imports come with the section of the tutorial that first needs them.
# ruff: noqa: E402

# [start-run]
import re

import numpy as np

import pyupmem as pim

HEAP = pim.DPU_MRAM_HEAP_POINTER_NAME  # "__sys_used_mram_end": the first free byte

nr_dpus, per_dpu = 16, 100_000  # 100,000 uint32 per DPU: 400,000 bytes, a multiple of 8
rng = np.random.default_rng(0)
data = rng.integers(0, 2**32, (nr_dpus, per_dpu), dtype=np.uint32)

program = pim.build_program("docs/tutorials/dpu_programs.c", nr_tasklets=16)
with pim.DpuSet(nr_dpus) as dpus:
    dpus.load(program)
    dpus.broadcast("nr_bytes", np.uint32(data[0].nbytes))
    dpus.scatter(HEAP, data)
    dpus.launch()
    sums = dpus.gather("sum", np.uint64, 1)[:, 0]
    maxima = dpus.gather("maximum", np.uint32, 1)[:, 0]
    print(dpus[0].log(), end="")

print("sums right:", np.array_equal(sums, data.sum(axis=1, dtype=np.uint64)))
print("maxima right:", np.array_equal(maxima, data.max(axis=1)))
# [end-run]

# [start-variants]
for tasklets, block in [(1, 2048), (11, 64), (24, 512)]:
    variant = pim.build_program(
        "docs/tutorials/dpu_programs.c", nr_tasklets=tasklets, defines={"BLOCK": block}
    )
    with pim.DpuSet(4) as dpus:
        dpus.load(variant)
        dpus.broadcast("nr_bytes", np.uint32(data[0].nbytes))
        dpus.scatter(HEAP, data[:4])
        dpus.launch()
        same = np.array_equal(dpus.gather("sum", np.uint64, 1)[:, 0], sums[:4])
    print(f"{tasklets:2d} tasklets, {block:4d}-byte blocks: same sums {same}")
# [end-variants]

# [start-fault]
broken = pim.build_program(
    """
    #include <defs.h>
    #include <mram.h>
    #include <stdint.h>
    __mram_noinit uint8_t table[64];
    __dma_aligned uint8_t buffer[16];
    int main(void)
    {
        if (me() == 1)
            mram_read(table, buffer, 12); /* 12 bytes: not a multiple of 8 */
        return 0;
    }
    """,
    nr_tasklets=2,
    name="broken",
)
with pim.DpuSet(2, strict=True) as dpus:  # strict: a broken rule faults
    dpus.load(broken)
    try:
        dpus.launch()
    except pim.DpuFaultError as error:
        for index, message in error.faults.items():
            message = re.sub(r"/\S*/", "", message)  # drop the cache folder
            print(f"DPU {index}:", message)
    dpus.load(program)  # loading again makes the DPUs usable
    dpus.broadcast("nr_bytes", np.uint32(8))
    dpus.scatter(HEAP, np.ones((2, 2), np.uint32))
    dpus.launch()
    print("after reloading:", dpus.gather("sum", np.uint64, 1)[:, 0])
# [end-fault]

# [start-compile-error]
try:
    pim.build_program("int main(void) { return undeclared; }\n", name="typo")
except pim.CompileError as error:
    print("compiler exit status:", error.returncode)
    print("mentions the culprit:", "undeclared" in error.output)
# [end-compile-error]
