"""The example on the landing page (docs/index.md): add two vectors on 64 DPUs."""

import numpy as np

import pyupmem as pim

KERNEL = r"""
#include <defs.h>
#include <stdint.h>
#define N 1024
__host uint32_t a[N], b[N], c[N];
int main(void) {
    for (int i = me(); i < N; i += NR_TASKLETS)
        c[i] = a[i] + b[i];
    return 0;
}
"""

program = pim.build_program(KERNEL, nr_tasklets=16)  # C source text, or a path
a = np.arange(64 * 1024, dtype=np.uint32).reshape(64, 1024)  # row i goes to DPU i
b = np.full_like(a, 7)

with pim.DpuSet(64) as dpus:
    dpus.load(program)
    dpus.scatter("a", a)
    dpus.scatter("b", b)
    dpus.launch()
    c = dpus.gather("c")  # shape (64, 1024), dtype uint32: from the C type of c

print(c.shape, c.dtype, "correct:", np.array_equal(c, a + b))
