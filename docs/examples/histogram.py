"""Histogram on DPUs: 12-bit values into bins, tasklets merging under a mutex.

Each DPU counts its share of the values (the shares may be uneven: each DPU is told its
own count with a scatter), the host adds the DPUs' histograms; checked against numpy.

Run it::

    python docs/examples/histogram.py --dpus 64 --elements 1000000 --bins 256
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import pyupmem as pim

HERE = Path(__file__).resolve().parent
HEAP = pim.DPU_MRAM_HEAP_POINTER_NAME


def build(nr_tasklets: int = 16, nr_bins: int = 256) -> pim.Program:
    """Compile ``histogram.c`` (cached) for the active backend."""
    return pim.build_program(
        HERE / "histogram.c", nr_tasklets=nr_tasklets, defines={"NR_BINS": nr_bins}
    )


def run(
    dpus: pim.DpuSet,
    nr_elements: int,
    *,
    nr_bins: int = 256,
    seed: int = 0,
    nr_tasklets: int = 16,
) -> tuple[np.ndarray, np.ndarray]:
    """Histogram ``nr_elements`` random 12-bit values into ``nr_bins`` bins on ``dpus``.

    Returns:
        ``(histogram from the DPUs, numpy's)``, both of ``nr_bins`` uint32 counts.
    """
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4096, nr_elements, dtype=np.uint32)

    nr_dpus = len(dpus)
    # Uneven shares: np.array_split gives the first DPUs one value more.
    shares = np.array_split(values, nr_dpus)
    counts = np.array([len(share) for share in shares], dtype=np.uint32)

    dpus.load(build(nr_tasklets, nr_bins))
    dpus.scatter("nr_elements", counts.reshape(nr_dpus, 1))
    dpus.scatter(HEAP, shares, pad=True)  # zero-padded to a common multiple of 8 bytes
    dpus.launch()
    histograms = dpus.gather("histogram", np.uint32, nr_bins)
    expected = np.bincount((values * nr_bins) >> 12, minlength=nr_bins).astype(np.uint32)
    return histograms.sum(axis=0, dtype=np.uint32), expected


def main(argv: list[str] | None = None) -> int:
    """Run the example from the command line; exit status 0 when the result is right."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dpus", type=int, default=64)
    parser.add_argument("--elements", type=int, default=1 << 20)
    parser.add_argument("--bins", type=int, default=256)
    parser.add_argument("--tasklets", type=int, default=16)
    args = parser.parse_args(argv)
    with pim.DpuSet(args.dpus) as dpus:
        result, expected = run(dpus, args.elements, nr_bins=args.bins, nr_tasklets=args.tasklets)
    ok = np.array_equal(result, expected)
    print(f"histogram of {args.elements} values on {args.dpus} DPUs: {'OK' if ok else 'WRONG'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
