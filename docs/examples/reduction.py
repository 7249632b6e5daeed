"""Reduction on DPUs: the sum of uint32 values, with per-tasklet partial sums.

Each DPU sums its block of the data (each tasklet into its own partial sum, then
tasklet 0 over the partials); the host adds the DPUs' totals, checked against numpy.

Run it::

    python docs/examples/reduction.py --dpus 64 --elements 1000000
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
    """Compile ``reduction.c`` (cached) for the active backend."""
    return pim.build_program(HERE / "reduction.c", nr_tasklets=nr_tasklets)


def run(
    dpus: pim.DpuSet, nr_elements: int, *, seed: int = 0, nr_tasklets: int = 16
) -> tuple[int, int]:
    """Sum ``nr_elements`` random uint32 on ``dpus``.

    Also checks that each DPU's total is the sum of its tasklets' partial sums.

    Returns:
        ``(sum from the DPUs, numpy's sum)``.
    """
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 2**32, nr_elements, dtype=np.uint32)

    nr_dpus = len(dpus)
    per_dpu = -(-nr_elements // nr_dpus)
    per_dpu += per_dpu % 2  # a multiple of 8 bytes; the zero padding adds nothing
    padded = np.zeros(nr_dpus * per_dpu, np.uint32)
    padded[:nr_elements] = data

    dpus.load(build(nr_tasklets))
    dpus.broadcast("nr_bytes", np.uint32(per_dpu * 4))
    dpus.scatter(HEAP, padded.reshape(nr_dpus, per_dpu))
    dpus.launch()
    partials = dpus.gather("partial", np.uint64, nr_tasklets)  # (nr_dpus, nr_tasklets)
    totals = dpus.gather("total", np.uint64, 1)[:, 0]
    if not np.array_equal(partials.sum(axis=1, dtype=np.uint64), totals):
        raise AssertionError("a DPU's total is not the sum of its tasklets' partials")
    return int(totals.sum(dtype=np.uint64)), int(data.sum(dtype=np.uint64))


def main(argv: list[str] | None = None) -> int:
    """Run the example from the command line; exit status 0 when the result is right."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dpus", type=int, default=64)
    parser.add_argument("--elements", type=int, default=1 << 20)
    parser.add_argument("--tasklets", type=int, default=16)
    args = parser.parse_args(argv)
    with pim.DpuSet(args.dpus) as dpus:
        result, expected = run(dpus, args.elements, nr_tasklets=args.tasklets)
    ok = result == expected
    print(
        f"sum of {args.elements} values on {args.dpus} DPUs = {result}: {'OK' if ok else 'WRONG'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
