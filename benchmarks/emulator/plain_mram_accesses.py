"""Times ordinary (trapped) loads at an MRAM address, the mistake PIM-Opt's kernels make:
one DPU, one tasklet, N loads in a loop, each a WRAM access at the address's low 16 bits.

    .venv/bin/python benchmarks/emulator/plain_mram_accesses.py [N]   (default 100000)

Prints the launch's wall time for 0 and N loads (warnings silenced)."""

import os
import sys
import time

import numpy as np

import pyupmem as pim

SOURCE = """
#include <stdint.h>
#include <defs.h>
__mram_noinit uint64_t results[4];
__host uint64_t wram_values[4];
__host uint32_t offset, rounds;
__host uint64_t total;
int main(void)
{
    uint64_t sum = 0;
    volatile uint64_t *plain = (uint64_t *)(uintptr_t)((uint32_t)(uintptr_t)&results[0] + offset);
    for (uint32_t round = 0; round < rounds; round++)
        sum += *plain;
    total = sum;
    return 0;
}
"""


def main() -> None:
    os.environ["PYUPMEM_EMU_QUIET"] = "1"
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    program = pim.build_program(SOURCE, nr_tasklets=1)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.broadcast("offset", np.uint32(dpus.symbol("wram_values").address + 8))
        dpus.broadcast("wram_values", np.array([7, 8, 9, 10], np.uint64))
        for n in (0, count):
            dpus.broadcast("rounds", np.uint32(n))
            start = time.perf_counter()
            dpus.launch()
            seconds = time.perf_counter() - start
            assert dpus.gather("total", np.uint64, 1)[0, 0] == 8 * n
            print(f"{n:>9,} loads at an MRAM address: launch {seconds * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
