"""The kernel time of seven PrIM-style workloads of our own at PrIM's sizes on 1, 4, 16 and
64 DPUs, launch included, against hardware.

Issue 25 gives, for PrIM's workloads at 1, 4, 16 and 64 DPUs (16 tasklets, strong scaling
at the sizes of uPIMulator's README), the hardware's kernel time as a ratio to what the
time model v2 (commit faae5d0) gave. workloads.c's kernels of the same schemes run here at
those sizes, each DPU its share, and the model's time of the launch (its slowest DPU and
the launch's own cost) is set beside v2's time of the same run (`V2_MS`: this script with
``--v2`` and that commit's pyupmem first on the path, ``PYTHONPATH=<a worktree of
faae5d0>``). A mechanism that is right moves our workload by
the ratio hardware moved PrIM's, so each row's error is (now / v2) / (hardware / v2) - 1.
Across the DPU counts a workload's share shrinks to a 64th, so the rows check the launch's
own cost against the per-element costs (at 64 DPUs a kernel takes a few tenths of a
millisecond, the launch about 0.1). Only SCAN-SSA's 64-DPU ratio had a part in setting a
constant (the launch's). With prim_transfers.py's rows of the same workloads, each run's
whole time (its transfers and its kernel) is set beside the hardware's too.

    .venv/bin/python benchmarks/timing/prim_kernels.py [--markdown] [--v2]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
import prim_transfers
from mechanisms import build, counted_estimate

import pyupmem as pim

DPUS = (1, 4, 16, 64)
VA_ELEMENTS = 2_097_152  # int32
GEMV_ROWS, GEMV_COLS = 4096, 64  # int32, values below 50
HST_PIXELS, HST_BINS = 524_288, 256  # 12-bit pixels
RED_ELEMENTS = 2_097_152  # int64
BS_ELEMENTS, BS_QUERIES = 131_072, 16_384  # int64: the array on every DPU, queries shared
SCAN_ELEMENTS = 1_048_576  # int64, in two launches
TRNS_TILES, TRNS_TILE_ROWS, TRNS_COLS = 128, 4, 8  # M_, m, n: a DPU's 512 x 8 int64 a round
TRNS_ROUNDS_ON_ONE = 64  # N_: the column blocks, as many rounds as DPUs fall short of it

# Hardware time / v2's time of PrIM's kernels (issue 25), at 1, 4, 16 and 64 DPUs.
HARDWARE_OVER_V2 = {
    "VA": (1.06, 1.08, 1.14, 1.29),
    "GEMV": (0.72, 0.73, 0.75, 0.72),
    "HST-S": (0.67, 0.68, 0.68, 0.66),
    "RED": (1.34, 1.35, 1.33, 1.05),
    "BS": (0.87, 0.88, 0.88, 0.81),
    "SCAN-SSA": (1.00, 1.01, 0.99, 0.77),  # its 64-DPU ratio set the launch's cost
    "TRNS": (0.75, 0.77, 0.71, 0.65),
}
# v2's kernel milliseconds of the same runs (this script with --v2 on faae5d0's pyupmem).
V2_MS: dict[str, tuple[float, ...]] = {
    "VA": (57.82201428571429, 14.533145714285713, 3.7319285714285715, 1.172402857142857),
    "GEMV": (23.009042857142855, 5.831728571428571, 1.5582142857142858, 0.6534399999999999),
    "HST-S": (64.88587142857142, 16.376874285714287, 4.2703742857142855, 1.3727657142857144),
    "RED": (36.57380571428571, 9.22422857142857, 2.407834285714286, 0.8244857142857144),
    "BS": (128.8118514285714, 32.32144, 8.238242857142856, 2.3227257142857143),
    "SCAN-SSA": (76.24871714285715, 19.218134285714285, 5.002488571428572, 1.6900771428571428),
    "TRNS": (55.0069485714285, 16.35021714285715, 6.8540342857142855, 4.563988571428571),
}

Inputs = dict[str, np.ndarray | int]


def shares(values: np.ndarray, dpus: int) -> np.ndarray:
    """`values` cut into one equal share per DPU (the first axis the DPU)."""
    return values.reshape(dpus, -1)


def kernel_ms(program: pim.Program, dpus: int, scattered: Inputs, broadcast: Inputs) -> float:
    """Launches `program` once on `dpus` DPUs, each with its share of `scattered` and all of
    `broadcast`; returns the model's time of the launch in milliseconds."""
    with pim.DpuSet(dpus, backend="emulator") as group:
        group.load(program)
        for name, value in scattered.items():
            group.scatter(name, value)
        for name, value in broadcast.items():
            group.broadcast(name, np.uint32(value) if isinstance(value, int) else value)
        group.launch()
        return counted_estimate(group).seconds * 1e3


def va(dpus: int, rng: np.random.Generator) -> float:
    a, b = rng.integers(-1000, 1000, (2, VA_ELEMENTS)).astype(np.int32)
    return kernel_ms(build("VECTOR_ADD"), dpus, {"a": shares(a, dpus), "b": shares(b, dpus)},
                     {"elements": VA_ELEMENTS // dpus})


def gemv(dpus: int, rng: np.random.Generator) -> float:
    matrix = rng.integers(0, 50, GEMV_ROWS * GEMV_COLS).astype(np.uint32)
    vector = rng.integers(0, 50, GEMV_COLS).astype(np.uint32)
    return kernel_ms(build("GEMV"), dpus,
                     {"matrix": shares(matrix, dpus)},
                     {"vector": vector, "rows": GEMV_ROWS // dpus, "cols": GEMV_COLS})


def hst_s(dpus: int, rng: np.random.Generator) -> float:
    pixels = rng.integers(0, 4096, HST_PIXELS).astype(np.uint32)
    return kernel_ms(build("HISTOGRAM_PRIVATE"), dpus, {"input": shares(pixels, dpus)},
                     {"elements": HST_PIXELS // dpus, "bins": HST_BINS})


def red(dpus: int, rng: np.random.Generator) -> float:
    values = rng.integers(-1 << 40, 1 << 40, RED_ELEMENTS).astype(np.int64)
    return kernel_ms(build("REDUCE"), dpus, {"input": shares(values, dpus)},
                     {"elements": RED_ELEMENTS // dpus})


def bs(dpus: int, rng: np.random.Generator) -> float:
    values = np.sort(rng.integers(0, 1 << 40, BS_ELEMENTS)).astype(np.int64)
    queries = values[rng.integers(0, BS_ELEMENTS, BS_QUERIES)]
    return kernel_ms(build("SEARCH"), dpus, {"queries": shares(queries, dpus)},
                     {"sorted": values, "elements": BS_ELEMENTS, "rows": BS_QUERIES // dpus})


def scan_ssa(dpus: int, rng: np.random.Generator) -> float:
    """Both launches of the scan: each DPU's, then the DPUs' totals added (checked)."""
    values = rng.integers(-1000, 1000, SCAN_ELEMENTS).astype(np.int64)
    per_dpu = SCAN_ELEMENTS // dpus
    with pim.DpuSet(dpus, backend="emulator") as group:
        group.load(build("SCAN"))
        group.scatter("values", shares(values, dpus))
        group.broadcast("elements", np.uint32(per_dpu))
        seconds = 0.0
        for kernel in (0, 1):
            if kernel == 1:
                totals = group.gather("total", np.int64, 1)[:, 0]
                before = np.concatenate(([0], np.cumsum(totals)[:-1])).astype(np.int64)
                group.scatter("offset", before.reshape(dpus, 1))
            group.broadcast("kernel", np.uint32(kernel))
            group.launch()
            seconds += counted_estimate(group).seconds
        if not np.array_equal(group.gather("sums", np.int64, per_dpu).reshape(-1),
                              np.cumsum(values)):
            raise SystemExit("the scan's result is wrong")
    return seconds * 1e3


def trns(dpus: int, rng: np.random.Generator) -> float:
    """Steps 2 and 3 of each round (N_ / DPUs rounds, a DPU's block of columns each): the
    flags cleared every round, step 3's start counter set only before the first (checked:
    the first round transposes)."""
    m, n, tiles = TRNS_TILE_ROWS, TRNS_COLS, TRNS_TILES
    blocks = rng.integers(-1000, 1000, (dpus, tiles * m, n)).astype(np.int64)
    seconds = 0.0
    with pim.DpuSet(dpus, backend="emulator") as group:
        group.load(build("TRANSPOSE_STEPS"))
        for name, value in (("rows", tiles), ("cols", n), ("tile_rows", m), ("next_start", 0)):
            group.broadcast(name, np.uint32(value))
        for round_ in range(TRNS_ROUNDS_ON_ONE // dpus):
            group.scatter("matrix", blocks.reshape(dpus, -1))
            group.broadcast("done_bits", np.zeros(tiles * n // 8 + 1, np.uint64))
            for kernel in (0, 1):
                group.broadcast("kernel", np.uint32(kernel))
                group.launch()
                seconds += counted_estimate(group).seconds
            if round_ == 0 and not np.array_equal(
                    group.gather("matrix", np.int64, tiles * m * n),
                    blocks.transpose(0, 2, 1).reshape(dpus, -1)):
                raise SystemExit("the transposition's result is wrong")
    return seconds * 1e3


WORKLOADS: dict[str, Callable[[int, np.random.Generator], float]] = {
    "VA": va, "GEMV": gemv, "HST-S": hst_s, "RED": red, "BS": bs, "SCAN-SSA": scan_ssa,
    "TRNS": trns,
}


def measure() -> dict[str, tuple[float, ...]]:
    """The model's kernel milliseconds of each workload at each DPU count."""
    return {name: tuple(run(dpus, np.random.default_rng(7)) for dpus in DPUS)
            for name, run in WORKLOADS.items()}


def rows(now: dict[str, tuple[float, ...]]) -> list[dict[str, object]]:
    """A row per workload and DPU count: now / v2 against hardware / v2."""
    result = []
    for name, times in now.items():
        for i, dpus in enumerate(DPUS):
            ratio, hardware = times[i] / V2_MS[name][i], HARDWARE_OVER_V2[name][i]
            result.append({"workload": name, "dpus": dpus, "modelled_ms": times[i],
                           "v2_ms": V2_MS[name][i], "now_over_v2": ratio,
                           "hardware_over_v2": hardware,
                           "error_pct": 100.0 * (ratio / hardware - 1)})
    return result


def whole_runs(table: list[dict[str, object]]) -> list[dict[str, object]]:
    """A row per workload and DPU count: the transfers (prim_transfers.rows()) and the kernel
    together, the model's and the hardware's."""
    transfers = prim_transfers.rows()
    result = []
    for r in table:
        phases = [t for t in transfers
                  if t["workload"] == r["workload"] and t["dpus"] == r["dpus"]]
        hardware = float(r["hardware_over_v2"]) * float(r["v2_ms"])  # type: ignore[arg-type]
        hardware += sum(float(t["hardware_ms"]) for t in phases)  # type: ignore[arg-type]
        modelled = float(r["modelled_ms"])  # type: ignore[arg-type]
        modelled += sum(float(t["modelled_ms"]) for t in phases)  # type: ignore[arg-type]
        result.append({"workload": r["workload"], "dpus": r["dpus"], "modelled_ms": modelled,
                       "hardware_ms": hardware, "error_pct": 100.0 * (modelled / hardware - 1)})
    return result


def mean_error(table: list[dict[str, object]], dpus: int | None = None) -> float:
    """Mean absolute error (%) over the rows, or over those at `dpus` DPUs."""
    chosen = [abs(float(r["error_pct"])) for r in table  # type: ignore[arg-type]
              if dpus is None or r["dpus"] == dpus]
    return sum(chosen) / len(chosen)


def joined(rows: list[dict[str, object]], key: str, form: str) -> str:
    return " / ".join(format(r[key], form) for r in rows)


def markdown(table: list[dict[str, object]], whole: list[dict[str, object]]) -> str:
    lines = ["| workload | kernel: now / v2 at 1 / 4 / 16 / 64 DPUs | hardware / v2 | "
             "kernel error (%) | whole run error (%) |", "|---|---|---|---|---|"]
    for name in WORKLOADS:
        mine = [r for r in table if r["workload"] == name]
        runs = [r for r in whole if r["workload"] == name]
        lines.append(f"| {name} | {joined(mine, 'now_over_v2', '.2f')} "
                     f"| {joined(mine, 'hardware_over_v2', '.2f')} "
                     f"| {joined(mine, 'error_pct', '+.0f')} "
                     f"| {joined(runs, 'error_pct', '+.0f')} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="also print a markdown table")
    parser.add_argument("--v2", action="store_true",
                        help="print the kernel times only (to fill V2_MS on commit faae5d0)")
    args = parser.parse_args()
    now = measure()
    if args.v2:
        print("{" + ", ".join(f'"{k}": {v!r}' for k, v in now.items()) + "}")
        return
    table = rows(now)
    for r in table:
        print(f"  {r['workload']:<6} {r['dpus']:>2} DPU(s): modelled {r['modelled_ms']:8.3f} ms, "
              f"v2 {r['v2_ms']:8.3f} ms, now / v2 {r['now_over_v2']:.3f}, hardware / v2 "
              f"{r['hardware_over_v2']:.2f}: {r['error_pct']:+6.1f}%")
    whole = whole_runs(table)
    print(f"{len(table)} rows: mean absolute error {mean_error(table):.1f}%, at 64 DPUs "
          f"{mean_error(table, 64):.1f}%; whole runs (transfers and kernel) "
          f"{mean_error(whole):.1f}%, at 64 DPUs {mean_error(whole, 64):.1f}%")
    if args.markdown:
        print(markdown(table, whole))


if __name__ == "__main__":
    main()
