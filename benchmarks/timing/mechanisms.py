"""The time model's mechanisms, each against what real hardware shows.

Runs workloads.c (PrIM-style kernels of our own) and pyupmem's transfer and launch
estimates, and sets each modelled figure beside the hardware's (UPMEM_ABI.md section 5:
the PrIM characterisation, and hardware measurements of PrIM workloads at 1-64 DPUs).
Each row says whether the hardware figure *set* a constant of the model (then the row
only shows the constant is applied as meant) or was *predicted* by a mechanism whose
constants come from elsewhere. Rows "now / v2" check a change of the model against what
hardware said of the previous one (issue 25: hardware time / time modelled by v2, on
PrIM's workloads): a mechanism that is right moves our own workload of the same kind by
that ratio. V2 holds the figures the previous model (v2, commit faae5d0) gives for the
same workloads, measured with this script's functions on that commit. A "reference" row
sets a figure beside a published one that the model no longer follows:

    .venv/bin/python benchmarks/timing/mechanisms.py [--json mechanisms.json] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import prim_transfers

import pyupmem as pim

HERE = Path(__file__).resolve().parent
TASKLETS = 16
ROWS, COLS = 4096, 64  # PrIM GEMV's matrix on one DPU
ELEMENTS = 1 << 18
SHORT = 1300  # rounds of the short launches' loop: about 0.3 ms, as SCAN-SSA's at 64 DPUs
TILE_ROWS, TILE_COLS = 64, 48  # the TRNS-style transposition: a matrix of 64-byte tiles
SEARCHED, QUERIES = 131_072, 4096  # the BS-style search: PrIM BS's array, 256 queries a tasklet


def build(workload: str, *defines: str, tasklets: int = TASKLETS) -> pim.Program:
    macros = {f"WORKLOAD_{workload}": None, **{d: None for d in defines}}
    return pim.build_program(
        HERE / "workloads.c", nr_tasklets=tasklets, defines=macros, debug=False,
        name=f"{workload.lower()}-{tasklets}", backend="emulator",
    )


def counted_estimate(dpus: pim.DpuSet) -> pim.KernelEstimate:
    """The estimate of the last launch on `dpus`, whose program counted its instructions."""
    estimate = dpus.estimate()
    if not estimate.counted:
        raise SystemExit("the workloads were built without cost counting (x86-64 only)")
    return estimate


def run(program: pim.Program, nr_dpus: int = 1, **inputs: np.ndarray | int) -> tuple[int, tuple]:
    """Launches `program` once; returns tasklet 0's measured cycles, the launch's estimate
    and each tasklet's last perfcounter reading (`seen`)."""
    with pim.DpuSet(nr_dpus, backend="emulator") as dpus:
        dpus.load(program)
        for name, value in inputs.items():
            dpus.broadcast(name, np.uint32(value) if isinstance(value, int) else value)
        dpus.launch()
        estimate = counted_estimate(dpus)
        cycles = int(dpus.gather("cycles", np.uint64, 1)[0, 0])
        seen = dpus.gather("seen", np.uint64, TASKLETS)[0]
        return cycles, (estimate, seen)


def row(mechanism: str, what: str, modelled: float, hardware: str, hw_value: float | None,
        unit: str, role: str) -> dict[str, object]:
    error = None if hw_value is None else 100.0 * (modelled - hw_value) / hw_value
    shown = "" if error is None else f"{error:+6.1f}%"
    print(f"  {what:<48} modelled {modelled:10.3f} {unit:<9} hardware {hardware:<12} {shown}")
    return {"mechanism": mechanism, "what": what, "modelled": modelled, "hardware": hardware,
            "hardware_value": hw_value, "unit": unit, "error_pct": error, "role": role}


def multiply_rows() -> list[dict[str, object]]:
    rng = np.random.default_rng(0)
    program = build("GEMV")
    rows = []
    cases = (
        ("mostly zero weights (98% zero)",
         lambda n: np.where(rng.random(n) < 0.98, 0, rng.integers(1, 3, n)), 17),
        ("values below 50", lambda n: rng.integers(0, 50, n), 24),
        ("values below 127", lambda n: rng.integers(0, 127, n), 29),
    )
    for label, draw, hardware in cases:
        matrix = draw(ROWS * COLS).astype(np.uint32)
        vector = rng.integers(0, 50 if hardware != 29 else 127, COLS).astype(np.uint32)
        cycles, _ = run(program, matrix=matrix, vector=vector, rows=ROWS, cols=COLS)
        rows.append(row("multiply", f"GEMV cycles per multiply-add, {label}",
                        cycles / (ROWS * COLS), f"about {hardware}", hardware, "cycles",
                        "predicted"))
    return rows


# The previous model's (v2, commit faae5d0) figures for the "now / v2" rows, measured with
# kernel_figures() below on that commit.
V2: dict[str, float] = {
    "gemv50": 30.61162567138672,  # workloads.c's GEMV in PrIM's shape (64 columns, later)
    "hst_s": 43.313411712646484,  # with the histograms zeroed and merged (later)
    "red": 6.101531982421875,
    "trns": 1084.9055989583333,  # transpose_cycles()'s workload, run on that commit
    "va": 9.635009765625,  # workloads.c's VECTOR_ADD (added later), run on that commit
    "bs": 2764.59619140625,  # workloads.c's SEARCH (added later), run on that commit
    "short16": 0.0009616799999999999,
    "short64": 0.00121368,
}


def gemv_cycles(program: pim.Program, limit: int, rng: np.random.Generator) -> float:
    matrix = rng.integers(0, limit, ROWS * COLS).astype(np.uint32)
    vector = rng.integers(0, limit, COLS).astype(np.uint32)
    cycles, _ = run(program, matrix=matrix, vector=vector, rows=ROWS, cols=COLS)
    return cycles / (ROWS * COLS)


def transpose_cycles() -> float:
    """Cycles per tile of the TRNS-style in-place transposition (a mutex held across DMAs)."""
    tiles = TILE_ROWS * TILE_COLS
    data = np.arange(tiles * 8, dtype=np.uint64)
    done = np.zeros((tiles + 63) // 64 * 8, dtype=np.uint64)
    cycles, _ = run(build("TRANSPOSE"), tiles=data, done=done, rows=TILE_ROWS, cols=TILE_COLS)
    return cycles / tiles


def search_cycles() -> float:
    """Cycles per query of the BS-style binary search (256-byte probes, DMA-bound)."""
    rng = np.random.default_rng(5)
    values = np.sort(rng.integers(0, 1 << 40, SEARCHED)).astype(np.int64)
    queries = values[rng.integers(0, SEARCHED, QUERIES)]
    cycles, _ = run(build("SEARCH"), sorted=values, queries=queries, elements=SEARCHED,
                    rows=QUERIES)
    return cycles / QUERIES


def kernel_figures() -> dict[str, float]:
    """The kernel figures that the "now / v2" rows compare (cycles per element, seconds)."""
    rng = np.random.default_rng(2)
    pixels = rng.integers(0, 4096, ELEMENTS).astype(np.uint32)
    hst, _ = run(build("HISTOGRAM_PRIVATE"), input=pixels, elements=ELEMENTS, bins=256)
    data = np.arange(ELEMENTS // 2, dtype=np.int64)
    red, _ = run(build("REDUCE"), input=data, elements=ELEMENTS // 2)
    a, b = np.random.default_rng(3).integers(-1000, 1000, (2, ELEMENTS)).astype(np.int32)
    va, _ = run(build("VECTOR_ADD"), a=a, b=b, elements=ELEMENTS)
    figures = {
        "trns": transpose_cycles(),
        "gemv50": gemv_cycles(build("GEMV"), 50, rng),
        "hst_s": hst / ELEMENTS,
        "red": red / (ELEMENTS // 2),
        "va": va / ELEMENTS,
        "bs": search_cycles(),
    }
    for dpus in (16, 64):  # SCAN-SSA's short launches: two of a compute loop (~0.3 ms)
        with pim.DpuSet(dpus, backend="emulator") as group:
            group.load(build("EQUAL"))
            group.broadcast("elements", np.uint32(SHORT))
            total = 0.0
            for _ in range(2):
                group.launch()
                total += group.estimate().seconds
        figures[f"short{dpus}"] = total
    return figures


def versus_v2(mechanism: str, what: str, key: str, now: float, hardware: float,
              source: str) -> dict[str, object]:
    ratio = now / V2[key]
    return row(mechanism, f"{what}: now / v2", ratio, f"{hardware} ({source})", hardware,
               "ratio", "predicted")


def change_rows() -> list[dict[str, object]]:
    kernels = kernel_figures()
    rows = [
        versus_v2("multiply", "GEMV, values below 50, cycles per multiply-add", "gemv50",
                  kernels["gemv50"], 0.73, "PrIM GEMV 0.72-0.75"),
        versus_v2("multiply", "HST-S style, x 256 bins per pixel, cycles per pixel", "hst_s",
                  kernels["hst_s"], 0.67, "PrIM HST-S 0.66-0.68"),
        versus_v2("loop pattern", "RED style int64 sum, cycles per element", "red",
                  kernels["red"], 1.34, "PrIM RED 1.33-1.35"),
        versus_v2("loop pattern", "VA style int32 b += a over MRAM, cycles per element", "va",
                  kernels["va"], 1.06, "PrIM VA at 1 DPU"),
        versus_v2("DMA-bound search", "BS style binary search, 256-byte probes, cycles per "
                  "query", "bs", kernels["bs"], 0.88, "PrIM BS 0.87-0.88 at 1-16 DPUs"),
        versus_v2("mutex over a DMA", "TRNS style, tiles claimed under one mutex across "
                  "DMAs, cycles per tile", "trns", kernels["trns"], 0.72, "PrIM TRNS 0.65-0.77"),
        versus_v2("launch", "two short launches on 16 DPUs, kernel time", "short16",
                  kernels["short16"], 0.99, "PrIM SCAN-SSA"),
        versus_v2("launch", "two short launches on 64 DPUs, kernel time", "short64",
                  kernels["short64"], 0.77, "PrIM SCAN-SSA"),
    ]
    for launch in rows[-2:]:
        launch["role"] = "set"  # the launch's split was set from SCAN-SSA's ratios
    return rows


def prim_transfer_rows(table: list[dict[str, object]]) -> list[dict[str, object]]:
    """PrIM workloads' transfers at their own bytes per DPU (`table`, prim_transfers.rows()):
    the constants were set from these rows."""
    result = []
    for r in table:
        hardware = float(r["hardware_ms"])  # type: ignore[arg-type]
        what = f"{r['workload']} {r['phase']}, {r['dpus']} DPU(s): ms"
        result.append(row("transfers", what, float(r["modelled_ms"]),  # type: ignore[arg-type]
                          f"{hardware:.3f} (PrIM {r['workload']})", hardware, "ms", "set"))
    return result


def mutex_rows() -> list[dict[str, object]]:
    data = np.random.default_rng(1).integers(0, 4096, ELEMENTS).astype(np.uint32)
    cycles, _ = run(build("HISTOGRAM"), input=data, elements=ELEMENTS)
    return [row("mutex", "histogram, one mutex per element: cycles per element",
                cycles / ELEMENTS, "about 97", 97, "cycles", "predicted")]


def streaming_rows() -> list[dict[str, object]]:
    data = np.arange(ELEMENTS // 2, dtype=np.int64)
    full, _ = run(build("REDUCE"), input=data, elements=ELEMENTS // 2)
    dma, _ = run(build("REDUCE", "DMA_ONLY"), input=data, elements=ELEMENTS // 2)
    return [row("streaming", "int64 reduction over MRAM: time / its DMA alone",
                full / dma, "49.5/27.6", 49.5 / 27.6, "ratio", "predicted")]


def perfcounter_rows() -> list[dict[str, object]]:
    _, (estimate, seen) = run(build("EQUAL"), elements=20_000)
    launch = int(estimate.cycles[0])
    return [row("perfcounter", "16 equal tasklets: earliest perfcounter_get() / launch",
                float(seen.min()) / launch, "1 (the DPU's)", 1.0, "ratio", "predicted")]


def launch_rows() -> list[dict[str, object]]:
    _, (estimate, _) = run(build("EMPTY"), nr_dpus=1)
    return [row("launch", "empty launch on 1 DPU: ms", estimate.seconds * 1e3, "0.10 (range)",
                0.1, "ms", "set")]


def transfer_rows() -> list[dict[str, object]]:
    size = 32 << 20  # PrIM's 32 MB per DPU
    rows = []
    cases = (
        ("scatter", 1, 0.33), ("scatter", 4, 1.6), ("scatter", 64, 6.68),
        ("gather", 1, 0.12), ("gather", 64, 4.74), ("broadcast", 64, 16.88),
    )
    for kind, dpus, hardware in cases:
        seconds = pim.estimate.model.transfer_seconds(kind, size, dpus)
        rows.append(row("transfers", f"{kind} of 32 MB to each of {dpus} DPU(s): GB/s",
                        dpus * size / seconds / 1e9, f"{hardware} (PrIM char.)", hardware,
                        "GB/s", "set" if kind == "broadcast" else "reference"))
    seconds = pim.estimate.model.transfer_seconds("read", 32 << 20, 1)
    rows.append(row("transfers", "serial copy_from of 32 MB, one DPU: GB/s", size / seconds / 1e9,
                    "0.12 (PrIM char.)", 0.12, "GB/s", "reference"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument("--markdown", action="store_true", help="also print a markdown table")
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"The time model's mechanisms against hardware ({TASKLETS} tasklets, one DPU "
          "unless said)")
    rows = [
        *multiply_rows(), *mutex_rows(), *streaming_rows(), *perfcounter_rows(),
        *launch_rows(), *change_rows(), *transfer_rows(),
    ]
    workloads = prim_transfers.rows()
    transfer_checks = prim_transfer_rows(workloads)
    predicted = [abs(r["error_pct"]) for r in rows if r["role"] == "predicted"]  # type: ignore[arg-type]
    errors = prim_transfers.mean_errors(workloads)
    print(f"{len(rows) + len(transfer_checks)} rows; predicted ones: mean absolute error "
          f"{np.mean(predicted):.1f}%; "
          f"PrIM workloads' transfers ({len(workloads)} set rows): CPU-DPU "
          f"{errors['CPU-DPU']:.1f}%, DPU-CPU {errors['DPU-CPU']:.1f}% "
          f"({time.perf_counter() - started:.0f} s)")
    if args.markdown:
        print("\n| mechanism | figure | modelled | hardware | error | role |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            error = "" if r["error_pct"] is None else f"{r['error_pct']:+.1f}%"
            print(f"| {r['mechanism']} | {r['what']} | {r['modelled']:.3f} {r['unit']} | "
                  f"{r['hardware']} | {error} | {r['role']} |")
        print(f"\n{prim_transfers.markdown(workloads)}")
    if args.json:
        args.json.write_text(json.dumps(rows + transfer_checks, indent=2))


if __name__ == "__main__":
    main()
