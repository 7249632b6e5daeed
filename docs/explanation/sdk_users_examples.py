"""Examples for the page "pyupmem for SDK users" (docs/explanation/sdk_users.md): the
usual libdpu host calls and their pyupmem equivalents, on the emulator.

Run it from the repository root::

    .venv/bin/python docs/explanation/sdk_users_examples.py
"""

import io
import sys

import numpy as np

import pyupmem as pim

KERNEL = r"""
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>
#define N 256
__host uint32_t scale;          /* one value for every DPU */
__host uint32_t data[N];        /* one share per DPU */
__host uint64_t total;          /* one result per DPU */
__mram_noinit uint32_t blocks[64];
int main(void) {
    if (me() == 0) {
        uint64_t sum = 0;
        for (int i = 0; i < N; i++)
            sum += (uint64_t)data[i] * scale;
        total = sum;
        printf("sum %llu\n", (unsigned long long)sum);
    }
    return 0;
}
"""

# [start-basics]
program = pim.build_program(KERNEL, nr_tasklets=4)  # dpu-upmem-dpurte-clang ... -o kernel
data = np.arange(8 * 256, dtype=np.uint32).reshape(8, 256)  # row i for DPU i

with pim.DpuSet(8) as dpus:  # dpu_alloc(8, NULL, &set) ... dpu_free(set)
    dpus.load(program)  # dpu_load(set, "kernel", NULL)
    dpus.broadcast("scale", np.uint32(3))  # dpu_broadcast_to(set, "scale", 0, &s, 4, 0)
    dpus.scatter("data", data)  # DPU_FOREACH: dpu_prepare_xfer; dpu_push_xfer(TO_DPU)
    dpus.launch()  # dpu_launch(set, DPU_SYNCHRONOUS)
    totals = dpus.gather("total")  # DPU_FOREACH: dpu_prepare_xfer; dpu_push_xfer(FROM_DPU)
    print(len(dpus), "DPUs in", dpus.nr_ranks, "rank(s); totals", totals.dtype, totals[:3])
    print("right:", np.array_equal(totals, data.astype(np.uint64).sum(axis=1) * 3))
    print("DPU 0 printed:", dpus[0].log().strip())  # dpu_log_read(dpu, stdout)
# [end-basics]

# [start-foreach]
with pim.DpuSet(8) as dpus:
    dpus.load(program)
    dpus.broadcast("scale", np.uint32(1))
    for i, dpu in enumerate(dpus):  # DPU_FOREACH(set, dpu, i)
        dpu.write("data", data[i])  # dpu_copy_to(dpu, "data", 0, data[i], 1024)
    for rank in dpus.ranks:  # DPU_RANK_FOREACH(set, rank)
        rank.launch(asynchronous=True)  # dpu_launch(rank, DPU_ASYNCHRONOUS)
    dpus.sync(timeout=10)  # dpu_sync(set), with a time limit
    print("status:", dpus.status())  # dpu_status(set, &done, &fault)
    print("DPU 5 total:", dpus[5].read("total"))  # dpu_copy_from(dpu, "total", 0, &t, 8)
# [end-foreach]

# [start-async]
seen: list[int] = []
with pim.DpuSet(8) as dpus:
    dpus.load(program)
    dpus.broadcast("scale", np.uint32(2), asynchronous=True)  # DPU_XFER_ASYNC
    dpus.scatter("data", data, asynchronous=True)
    dpus.launch(asynchronous=True)
    out = np.empty(8, np.uint64)
    dpus.gather("total", out=out, asynchronous=True)  # filled when the queue gets there
    dpus.callback(lambda part: seen.append(len(part)), per_rank=True)  # dpu_callback
    dpus.sync()  # waits for the queue and raises what failed in it
    print("queued totals right:", np.array_equal(out, data.astype(np.uint64).sum(axis=1) * 2))
    print("callback calls (DPUs each):", seen)
# [end-async]

# [start-sg]
with pim.DpuSet(8, scatter_gather=True) as dpus:  # profile "sgXferEnable=true"
    dpus.load(program)
    blocks = [[np.full(16, i, np.uint32), np.full(48, 100 + i, np.uint32)] for i in range(8)]
    dpus.scatter_blocks("blocks", blocks)  # dpu_push_sg_xfer: DPU i gets its two blocks
    back = dpus.gather("blocks")
    print("DPU 3 blocks:", back[3, :2], "...", back[3, -2:])
# [end-sg]

# [start-sdk-python]
from pyupmem.sdk_compat import DpuSet  # noqa: E402  (`from dpu import DpuSet` after `pyupmem env`)

with DpuSet(nr_dpus=2, c_source=io.StringIO(KERNEL)) as sdk_dpus:
    sdk_dpus.scale = bytearray(np.uint32(1).tobytes())  # the same to every DPU
    sdk_dpus.copy("data", [bytearray(row.tobytes()) for row in data[:2]])  # one per DPU
    sdk_dpus.exec(log=[sys.stdout, None])  # run; print DPU 0's log
    print("SDK-style totals:", sdk_dpus.total.uint64())
# [end-sdk-python]
