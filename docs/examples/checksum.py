"""Checksum on DPUs: the sum of a buffer's bytes modulo 2^32, checked against numpy.

Each DPU sums its part of the buffer and prints its checksum and cycle count to its log;
the host reads the per-tasklet sums, adds them, and checks the logs too.

Run it::

    python docs/examples/checksum.py --dpus 64 --bytes 8000000 --print-logs
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

import pyupmem as pim

HERE = Path(__file__).resolve().parent
HEAP = pim.DPU_MRAM_HEAP_POINTER_NAME
LOG_LINE = re.compile(r"checksum 0x([0-9a-f]{8}) in (\d+) cycles")


def build(nr_tasklets: int = 16) -> pim.Program:
    """Compile ``checksum.c`` (cached) for the active backend."""
    return pim.build_program(HERE / "checksum.c", nr_tasklets=nr_tasklets)


def run(
    dpus: pim.DpuSet,
    nr_bytes: int,
    *,
    seed: int = 0,
    nr_tasklets: int = 16,
    print_logs: bool = False,
) -> tuple[int, int]:
    """Checksum ``nr_bytes`` random bytes on ``dpus``.

    Also checks that each DPU's log reports the checksum of its part.

    Returns:
        ``(checksum from the DPUs, numpy's)``.
    """
    rng = np.random.default_rng(seed)
    buffer = rng.integers(0, 256, nr_bytes, dtype=np.uint8)

    nr_dpus = len(dpus)
    per_dpu = -(-nr_bytes // nr_dpus)
    per_dpu = -(-per_dpu // 8) * 8  # a multiple of 8 bytes; zero padding adds nothing
    padded = np.zeros(nr_dpus * per_dpu, np.uint8)
    padded[:nr_bytes] = buffer

    dpus.load(build(nr_tasklets))
    dpus.broadcast("nr_bytes", np.uint32(per_dpu))
    dpus.scatter(HEAP, padded.reshape(nr_dpus, per_dpu))
    dpus.launch()
    sums = dpus.gather("checksums", np.uint32, nr_tasklets)
    per_dpu_sums = sums.sum(axis=1, dtype=np.uint64) & 0xFFFFFFFF
    for index, text in enumerate(dpus.logs()):
        match = LOG_LINE.search(text)
        if match is None or int(match.group(1), 16) != per_dpu_sums[index]:
            raise AssertionError(f"DPU {index}'s log does not show its checksum: {text!r}")
    if print_logs:
        dpus.print_logs()
    result = int(per_dpu_sums.sum(dtype=np.uint64)) & 0xFFFFFFFF
    return result, int(buffer.sum(dtype=np.uint64)) & 0xFFFFFFFF


def main(argv: list[str] | None = None) -> int:
    """Run the example from the command line; exit status 0 when the result is right."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dpus", type=int, default=64)
    parser.add_argument("--bytes", type=int, default=8 << 20)
    parser.add_argument("--tasklets", type=int, default=16)
    parser.add_argument("--print-logs", action="store_true")
    args = parser.parse_args(argv)
    with pim.DpuSet(args.dpus) as dpus:
        result, expected = run(
            dpus, args.bytes, nr_tasklets=args.tasklets, print_logs=args.print_logs
        )
    ok = result == expected
    print(
        f"checksum of {args.bytes} bytes on {args.dpus} DPUs = 0x{result:08x}: "
        f"{'OK' if ok else 'WRONG'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
