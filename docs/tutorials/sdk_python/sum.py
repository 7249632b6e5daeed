"""sum.py: the host side of the sum example, written for the UPMEM SDK's Python module
`dpu`. It runs unchanged on the SDK and, after `eval "$(python -m pyupmem env)"`, on
pyupmem's emulator."""

import os
import struct
import sys

from dpu import DpuSet

NR_DPUS = 8
MAX_VALUES = 4096
HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL = os.path.join(HERE, "..", "sdk_project", "dpu", "task.c")

with DpuSet(nr_dpus=NR_DPUS, c_source=KERNEL) as dpus:  # allocate, compile, load
    dpus.nr_values = bytearray(struct.pack("<I", MAX_VALUES))  # the same to every DPU
    shares = [
        bytearray(
            struct.pack(f"<{MAX_VALUES}I", *range(d * MAX_VALUES + 1, (d + 1) * MAX_VALUES + 1))
        )
        for d in range(NR_DPUS)
    ]
    dpus.copy("values", shares)  # one buffer per DPU
    dpus.exec(log=[sys.stdout] + [None] * (NR_DPUS - 1))  # run; print DPU 0's log
    total = sum(dpus.result.uint64())  # one value per DPU
    n = NR_DPUS * MAX_VALUES
    print(
        f"sum of 1..{n} on {len(dpus)} DPUs: {total} "
        f"({'right' if total == n * (n + 1) // 2 else 'WRONG'})"
    )
