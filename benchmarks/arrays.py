"""pyupmem.array's generated kernels against hand-written PrIM-style kernels.

For six jobs (vector addition, reduction, scan, select, histogram, GEMV), on the same data
and DPUs, this measures:

- the kernel's modelled hardware time (the emulator's time model: the ``DPU kernel`` phase
  of :meth:`pyupmem.dpus.dpuset.DpuSet.phase_seconds`, launches' own costs included), generated and
  hand-written (``benchmarks/arrays_prim/*.c``);
- the whole operation's modelled time: the inputs sent, the operation, the result brought
  back (``CPU-DPU`` + ``DPU kernel`` + ``DPU-CPU``);
- the whole operation's emulated (wall) time, the best of ``--repeat`` runs, and NumPy's
  time for the same job on this CPU;
- the operation alone on arrays that already live on the DPUs (as CuPy's ``a + b`` on
  device arrays: no input sent, a result array left in MRAM, a reduction's scalar brought
  back), emulated, over NumPy's time.

Every result is checked against NumPy's first. Run::

    .venv/bin/python benchmarks/arrays.py --dpus 64 --elements 4194304
"""

from __future__ import annotations

import argparse
import functools
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import pyupmem as pim
import pyupmem.array as pa

HERE = Path(__file__).resolve().parent / "arrays_prim"
HEAP = pim.DPU_MRAM_HEAP_POINTER_NAME
TASKLETS = 16


def shares(data: np.ndarray, nr_dpus: int) -> tuple[np.ndarray, int]:
    """``data`` split as PimArray splits it (ceil(n / D) rows per DPU), padded to 8 bytes:
    (array of shape (D, per_padded, ...), rows per DPU)."""
    per = -(-len(data) // nr_dpus)
    row = data.itemsize * int(np.prod(data.shape[1:]))
    padded_rows = -(-per * row // 8) * 8 // row if row <= 8 else per
    out = np.zeros((nr_dpus * padded_rows, *data.shape[1:]), data.dtype)
    for dpu in range(nr_dpus):
        part = data[dpu * per : (dpu + 1) * per]
        out[dpu * padded_rows : dpu * padded_rows + len(part)] = part
    return out.reshape(nr_dpus, -1), per


def counts_of(n: int, nr_dpus: int) -> np.ndarray:
    return pa.pimarray.even_counts(n, nr_dpus).astype(np.uint32)


_BUILT: dict[str, pim.Program] = {}


def hand(dpus: pim.DpuSet, name: str) -> None:
    """Load the hand-written kernel ``name`` (built once, loaded when another is loaded)."""
    if name not in _BUILT:
        _BUILT[name] = pim.build_program(HERE / f"{name}.c", nr_tasklets=TASKLETS)
    if dpus.program is None or dpus.program.program.path != _BUILT[name].path:
        dpus.load(_BUILT[name])


def join(gathered: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return np.concatenate([gathered[d, : c] for d, c in enumerate(counts)])


# ------------------------------------------------------------------ the six jobs


def vecadd_hand(dpus, a, b):
    hand(dpus, "vecadd")
    sa, _ = shares(a, len(dpus))
    sb, _ = shares(b, len(dpus))
    counts = counts_of(len(a), len(dpus))
    dpus.broadcast("input_bytes", np.uint32(sa.nbytes // len(dpus)))
    dpus.scatter("nr_elements", counts)
    dpus.scatter(HEAP, sa)
    dpus.scatter(HEAP, sb, offset=sb.nbytes // len(dpus))
    dpus.launch()
    c = dpus.gather(HEAP, np.int32, sa.shape[1], offset=2 * sa.nbytes // len(dpus))
    return join(c, counts)


def vecadd_generated(dpus, a, b):
    return (pa.asarray(a, dpus) + pa.asarray(b, dpus)).get()


def reduce_hand(dpus, a):
    hand(dpus, "reduce")
    sa, _ = shares(a, len(dpus))
    dpus.broadcast("input_bytes", np.uint32(sa.nbytes // len(dpus)))
    dpus.scatter("nr_elements", counts_of(len(a), len(dpus)))
    dpus.scatter(HEAP, sa)
    dpus.launch()
    return dpus.gather("total").sum()


def reduce_generated(dpus, a):
    return pa.asarray(a, dpus).sum()


def scan_hand(dpus, a):
    hand(dpus, "scan")
    sa, _ = shares(a, len(dpus))
    counts = counts_of(len(a), len(dpus))
    dpus.broadcast("input_bytes", np.uint32(sa.nbytes // len(dpus)))
    dpus.scatter("nr_elements", counts)
    dpus.scatter(HEAP, sa)
    dpus.broadcast("pass", np.uint32(0))
    dpus.launch()
    totals = dpus.gather("dpu_total")
    bases = np.concatenate(([0], np.cumsum(totals)[:-1])).astype(np.int64)
    dpus.scatter("dpu_base", bases)
    dpus.broadcast("pass", np.uint32(1))
    dpus.launch()
    out = dpus.gather(HEAP, np.int64, sa.shape[1], offset=sa.nbytes // len(dpus))
    return join(out, counts)


def scan_generated(dpus, a):
    return pa.cumsum(pa.asarray(a, dpus)).get()


def select_hand(dpus, a, mask):
    hand(dpus, "select")
    sa, per = shares(a, len(dpus))
    counts = counts_of(len(a), len(dpus))
    share = sa.nbytes // len(dpus)
    mask_bytes = -(-share // 4 // 8) * 8
    sm = np.zeros((len(dpus), mask_bytes), np.uint8)
    for d in range(len(dpus)):
        part = mask[d * per : (d + 1) * per]
        sm[d, : len(part)] = part
    dpus.broadcast("input_bytes", np.uint32(share))
    dpus.scatter("nr_elements", counts)
    dpus.scatter(HEAP, sa)
    dpus.scatter(HEAP, sm, offset=share)
    dpus.launch()
    kept = dpus.gather("kept")
    out = dpus.gather(HEAP, np.int32, sa.shape[1], offset=share + mask_bytes)
    per_block = 1024 // 4
    pieces = []
    for d, count in enumerate(counts):
        blocks = -(-int(count) // per_block)
        per = -(-blocks // TASKLETS) * per_block
        for t in range(TASKLETS):
            pieces.append(out[d, t * per : t * per + kept[d, t]])
    return np.concatenate(pieces)


def select_generated(dpus, a, mask):
    return pa.asarray(a, dpus)[pa.asarray(mask, dpus)].get()


def histogram_hand(dpus, a):
    hand(dpus, "histogram")
    sa, _ = shares(a, len(dpus))
    dpus.broadcast("input_bytes", np.uint32(sa.nbytes // len(dpus)))
    dpus.scatter("nr_elements", counts_of(len(a), len(dpus)))
    dpus.scatter(HEAP, sa)
    dpus.launch()
    return dpus.gather("counts").sum(axis=0, dtype=np.int64)


def histogram_generated(dpus, a):
    return pa.histogram(pa.asarray(a, dpus), 256, range=(0.0, 1.0))[0]


def gemv_hand(dpus, w, x):
    hand(dpus, "gemv")
    sw, _ = shares(w, len(dpus))
    counts = counts_of(len(w), len(dpus))
    share = sw.nbytes // len(dpus)
    dpus.broadcast("input_bytes", np.uint32(share))
    dpus.broadcast("nr_cols", np.uint32(w.shape[1]))
    dpus.scatter("nr_elements", counts)
    dpus.scatter(HEAP, sw)
    dpus.broadcast(HEAP, x, offset=share)
    dpus.launch()
    y = dpus.gather(HEAP, np.int32, -(-int(counts.max()) // 2) * 2,
                    offset=share + -(-x.nbytes // 8) * 8)
    return join(y, counts)


def gemv_generated(dpus, w, x):
    return (pa.asarray(w, dpus) @ x).get()


# The operation alone on arrays already on the DPUs: (the arrays to send first, the
# operation on them). Array results stay on the DPUs (freed after each run).
RESIDENT = {
    "vector addition": (lambda a, b: (a, b), lambda x, y: x + y),
    "reduction": (lambda a: (a,), lambda x: x.sum()),
    "scan": (lambda a: (a,), lambda x: pa.cumsum(x)),
    "select": (lambda a, mask: (a, mask), lambda x, m: x[m]),
    "histogram": (lambda f: (f,), lambda x: pa.histogram(x, 256, range=(0.0, 1.0))),
    "GEMV": (lambda w, x: (w,), None),  # x stays a host vector: W @ x
}


def resident_seconds(dpus: pim.DpuSet, name: str, inputs: tuple, repeat: int) -> float:
    """The best emulated time of the operation alone, its inputs already on the DPUs."""
    sent_of, operation = RESIDENT[name]
    arrays = [pa.asarray(x, dpus) for x in sent_of(*inputs)]
    if operation is None:  # GEMV: the matrix lives on the DPUs, the vector comes along
        def operation(w: pa.PimArray) -> object:
            return w @ inputs[1]
    best = float("inf")
    for _ in range(repeat + 1):  # the first run builds and loads the kernel
        start = time.perf_counter()
        result = operation(*arrays)
        seconds = time.perf_counter() - start
        best = min(best, seconds)
        if isinstance(result, pa.PimArray):
            result.free()
    for array in arrays:
        array.free()
    return best


# ------------------------------------------------------------------ measuring


def measure(
    dpus: pim.DpuSet, job: Callable[[], object], repeat: int
) -> tuple[object, float, float, float]:
    """(result, modelled kernel s, modelled whole s, best emulated s), after a warm-up."""
    job()  # builds and loads the programs
    best, figures = float("inf"), None
    for _ in range(repeat):
        before = dpus.phase_seconds(estimated=True)
        start = time.perf_counter()
        result = job()
        best = min(best, time.perf_counter() - start)
        after = dpus.phase_seconds(estimated=True)
        delta = {k: after[k] - before[k] for k in after}
        figures = (delta[pim.DPU_KERNEL],
                   delta[pim.CPU_DPU] + delta[pim.DPU_KERNEL] + delta[pim.DPU_CPU])
    return result, figures[0], figures[1], best


def numpy_seconds(job: Callable[[], object], repeat: int) -> tuple[object, float]:
    job()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = job()
        best = min(best, time.perf_counter() - start)
    return result, best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dpus", type=int, default=64)
    parser.add_argument("--elements", type=int, default=1 << 22)
    parser.add_argument("--cols", type=int, default=1024, help="GEMV's columns")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="jobs to run (default: all)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    n = args.elements
    a = rng.integers(-(2**30), 2**30, n, dtype=np.int32)
    b = rng.integers(-(2**30), 2**30, n, dtype=np.int32)
    mask = rng.random(n) < 0.5
    f = rng.random(n, dtype=np.float32)
    rows = max(n // args.cols, 1)
    w = rng.integers(-1000, 1000, (rows, args.cols), dtype=np.int32)
    x = rng.integers(-1000, 1000, args.cols, dtype=np.int32)
    jobs = {
        "vector addition": (vecadd_generated, vecadd_hand, lambda: a + b, (a, b)),
        "reduction": (reduce_generated, reduce_hand, lambda: a.sum(), (a,)),
        "scan": (scan_generated, scan_hand, lambda: np.cumsum(a), (a,)),
        "select": (select_generated, select_hand, lambda: a[mask], (a, mask)),
        "histogram": (histogram_generated, histogram_hand,
                      lambda: np.histogram(f, 256, range=(0.0, 1.0))[0], (f,)),
        "GEMV": (gemv_generated, gemv_hand, lambda: w @ x, (w, x)),
    }
    load = os.getloadavg()[0]
    print(f"{n} elements (GEMV: {rows} x {args.cols}) on {args.dpus} DPUs, {TASKLETS} tasklets; "
          f"load average {load:.2f}")
    header = (f"{'job':<16} {'kernel gen':>11} {'kernel hand':>11} {'ratio':>6} "
              f"{'whole gen':>10} {'whole hand':>10} {'ratio':>6} {'emul gen':>9} "
              f"{'emul hand':>9} {'numpy':>8} {'gen/np':>7} {'resident/np':>11}")
    rows_out = [header, "-" * len(header)]
    with pim.DpuSet(args.dpus) as dpus:
        for name, (generated, handwritten, reference, inputs) in jobs.items():
            if args.only and name not in args.only:
                continue
            expected, numpy_s = numpy_seconds(reference, args.repeat)
            with pa.settings(nr_tasklets=TASKLETS):
                got_gen, kg, wg, eg = measure(
                    dpus, functools.partial(generated, dpus, *inputs), args.repeat
                )
                resident = resident_seconds(dpus, name, inputs, args.repeat)
            got_hand, kh, wh, eh = measure(
                dpus, functools.partial(handwritten, dpus, *inputs), args.repeat
            )
            assert np.array_equal(got_gen, expected), f"{name}: generated result differs"
            if name != "histogram":  # the hand-written one bins without NumPy's edge rules
                assert np.array_equal(got_hand, expected), f"{name}: hand-written result differs"
            rows_out.append(
                f"{name:<16} {kg * 1e3:>8.3f} ms {kh * 1e3:>8.3f} ms {kg / kh:>6.2f} "
                f"{wg * 1e3:>7.2f} ms {wh * 1e3:>7.2f} ms {wg / wh:>6.2f} {eg:>7.3f} s "
                f"{eh:>7.3f} s {numpy_s:>6.3f} s {eg / numpy_s:>7.1f} {resident / numpy_s:>11.1f}"
            )
            print(rows_out[-1], flush=True)
    print("\n".join(["", *rows_out]))
    print("kernel, whole: modelled hardware time; emul: emulated wall time of the whole "
          "operation (best of", args.repeat, "runs); gen/np: emulated generated over NumPy; "
          "resident/np: the operation alone on arrays already on the DPUs over NumPy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
