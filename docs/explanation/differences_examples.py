"""Examples for the page on differences from hardware: a broken DMA rule in default and
strict mode, and the shuffle schedule finding a race.

Run it from the repository root::

    .venv/bin/python docs/explanation/differences_examples.py
"""

import os
import re
import subprocess
import sys

import numpy as np

import pyupmem as pim

# [start-kernel]
KERNEL = """
#include <defs.h>
#include <mram.h>
#include <stdint.h>
__mram_noinit uint64_t table[4];
__host uint64_t out[2];
int main(void)
{
    if (me() == 0)
        mram_read(table, out, 12); /* 12 bytes: not a multiple of 8 */
    return 0;
}
"""
program = pim.build_program(KERNEL, nr_tasklets=2, name="odd_size")


def run(strict: bool) -> list[int]:
    with pim.DpuSet(1, strict=strict) as dpus:
        dpus.load(program)
        dpus.write("table", np.arange(1, 5, dtype=np.uint64))
        dpus.write("out", np.zeros(2, np.uint64))
        dpus.launch()
        return np.ravel(dpus.read("out", np.uint64)).tolist()
# [end-kernel]


def child(mode: str) -> tuple[str, str]:
    """Runs `mode` in a child Python with the emulator's messages on, as a user sees them;
    returns what it printed on stdout and stderr, without the cache folder."""
    env = {k: v for k, v in os.environ.items() if k != "PYUPMEM_EMU_QUIET"}
    done = subprocess.run([sys.executable, __file__, mode], env=env, capture_output=True, text=True)
    return re.sub(r"/\S*/", "", done.stdout), re.sub(r"/\S*/", "", done.stderr)


if len(sys.argv) > 1:  # the child: run one mode
    if sys.argv[1] == "default":
        print("default mode, out:", run(strict=False))
    else:
        try:
            run(strict=True)
        except pim.DpuFaultError as error:
            print("strict mode:", next(iter(error.faults.values())))
    sys.exit(0)

# [start-modes]
out, err = child("default")
print(err.strip())  # the warning, on the host program's standard error
print(out.strip())  # the hardware's result: 8 bytes moved, out[1] untouched
out, err = child("strict")
print(out.strip())  # the fault
# [end-modes]

# [start-shuffle]
RACY = """
#include <defs.h>
#include <mram.h>
#include <mutex.h>
#include <stdint.h>
__host uint32_t total;
__host uint32_t use_mutex;
__mram_noinit uint64_t scratch[16];
MUTEX_INIT(lock);
int main(void)
{
    __dma_aligned uint64_t value = me();
    if (use_mutex)
        mutex_lock(lock);
    uint32_t seen = total;              /* read ...                          */
    mram_write(&value, &scratch[me()], 8); /* ... a DMA: other tasklets run ... */
    total = seen + 1;                   /* ... write: a lost update if they did */
    if (use_mutex)
        mutex_unlock(lock);
    return 0;
}
"""
racy = pim.build_program(RACY, nr_tasklets=16, name="racy")
for use_mutex in (0, 1):
    totals = []
    for seed in range(5):
        with pim.DpuSet(1, schedule=f"shuffle:{seed}") as dpus:
            dpus.load(racy)
            dpus.write("total", np.uint32(0))
            dpus.write("use_mutex", np.uint32(use_mutex))
            dpus.launch()
            totals.append(int(np.ravel(dpus.read("total", np.uint32))[0]))
    print("with a mutex:" if use_mutex else "without a mutex:", totals)
# [end-shuffle]
