"""Vector addition on DPUs: C = A + B for int32 vectors, checked against numpy.

The vectors are split across the DPUs in contiguous blocks padded to 8 bytes; each DPU
holds its part of A, then of B, then of C in MRAM from ``DPU_MRAM_HEAP_POINTER``.

Run it::

    python docs/examples/vecadd.py --dpus 64 --elements 1000000
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import pyupmem as pim

HERE = Path(__file__).resolve().parent
HEAP = pim.DPU_MRAM_HEAP_POINTER_NAME


def build(nr_tasklets: int = 16) -> pim.Program:
    """Compile ``vecadd.c`` (cached) for the active backend."""
    return pim.build_program(HERE / "vecadd.c", nr_tasklets=nr_tasklets)


def run(
    dpus: pim.DpuSet, nr_elements: int, *, seed: int = 0, nr_tasklets: int = 16
) -> tuple[np.ndarray, np.ndarray]:
    """Add two random vectors of ``nr_elements`` int32 on ``dpus``.

    Returns:
        ``(result from the DPUs, numpy's A + B)``.
    """
    rng = np.random.default_rng(seed)
    a = rng.integers(-(2**30), 2**30, nr_elements, dtype=np.int32)
    b = rng.integers(-(2**30), 2**30, nr_elements, dtype=np.int32)

    nr_dpus = len(dpus)
    per_dpu = -(-nr_elements // nr_dpus)  # elements per DPU, rounded up ...
    per_dpu += per_dpu % 2  # ... to a multiple of 8 bytes
    nr_bytes = per_dpu * 4
    padded_a = np.zeros(nr_dpus * per_dpu, np.int32)
    padded_b = np.zeros(nr_dpus * per_dpu, np.int32)
    padded_a[:nr_elements] = a
    padded_b[:nr_elements] = b

    dpus.load(build(nr_tasklets))
    dpus.broadcast("nr_bytes", np.uint32(nr_bytes))
    dpus.scatter(HEAP, padded_a.reshape(nr_dpus, per_dpu))
    dpus.scatter(HEAP, padded_b.reshape(nr_dpus, per_dpu), offset=nr_bytes)
    dpus.launch()
    c = dpus.gather(HEAP, np.int32, per_dpu, offset=2 * nr_bytes)
    return c.reshape(-1)[:nr_elements], a + b


def main(argv: list[str] | None = None) -> int:
    """Run the example from the command line; exit status 0 when the result is right."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dpus", type=int, default=64)
    parser.add_argument("--elements", type=int, default=1 << 20)
    parser.add_argument("--tasklets", type=int, default=16)
    args = parser.parse_args(argv)
    with pim.DpuSet(args.dpus) as dpus:
        result, expected = run(dpus, args.elements, nr_tasklets=args.tasklets)
    ok = np.array_equal(result, expected)
    print(f"vecadd of {args.elements} elements on {args.dpus} DPUs: {'OK' if ok else 'WRONG'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
