"""The time model's mechanisms, each against what real hardware shows.

Runs workloads.c (PrIM-style kernels of our own) and pyupmem's transfer and launch
estimates, and sets each modelled figure beside the hardware's (UPMEM_ABI.md section 5:
the PrIM characterisation, and hardware measurements of PrIM workloads at 1-64 DPUs).
Each row says whether the hardware figure *set* a constant of the model (then the row
only shows the constant is applied as meant) or was *predicted* by a mechanism whose
constants come from elsewhere:

    .venv/bin/python benchmarks/timing/mechanisms.py [--json mechanisms.json] [--markdown]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import pyupmem as pim

HERE = Path(__file__).resolve().parent
TASKLETS = 16
ROWS, COLS = 64, 2048
ELEMENTS = 1 << 18


def build(workload: str, *defines: str, tasklets: int = TASKLETS) -> pim.Program:
    macros = {f"WORKLOAD_{workload}": None, **{d: None for d in defines}}
    return pim.build_program(
        HERE / "workloads.c", nr_tasklets=tasklets, defines=macros, debug=False,
        name=f"{workload.lower()}-{tasklets}", backend="emulator",
    )


def run(program: pim.Program, nr_dpus: int = 1, **inputs: np.ndarray | int) -> tuple[int, tuple]:
    """Launches `program` once; returns tasklet 0's measured cycles, the launch's estimate
    and each tasklet's last perfcounter reading (`seen`)."""
    with pim.DpuSet(nr_dpus, backend="emulator") as dpus:
        dpus.load(program)
        for name, value in inputs.items():
            dpus.broadcast(name, np.uint32(value) if isinstance(value, int) else value)
        dpus.launch()
        estimate = dpus.estimate()
        if not estimate.counted:
            raise SystemExit("the workloads were built without cost counting (x86-64 only)")
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
    rows = []
    for dpus, hardware in ((1, 0.1e-3), (64, 0.25e-3)):
        _, (estimate, _) = run(build("EMPTY"), nr_dpus=dpus)
        rows.append(row("launch", f"empty launch on {dpus} DPU(s): ms", estimate.seconds * 1e3,
                        f"{hardware * 1e3:.2f} (range)", hardware * 1e3, "ms", "set"))
    return rows


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
                        dpus * size / seconds / 1e9, f"{hardware}", hardware, "GB/s", "set"))
    seconds = pim.estimate.model.transfer_seconds("scatter", 8, 64)
    rows.append(row("transfers", "scatter of 8 bytes to 64 DPUs: ms", seconds * 1e3,
                    "0.1 or more", 0.1, "ms", "set"))
    seconds = pim.estimate.model.transfer_seconds("read", 32 << 20, 1)
    rows.append(row("transfers", "serial copy_from of 32 MB, one DPU: GB/s", size / seconds / 1e9,
                    "0.12", 0.12, "GB/s", "set"))
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
        *launch_rows(), *transfer_rows(),
    ]
    predicted = [abs(r["error_pct"]) for r in rows if r["role"] == "predicted"]  # type: ignore[arg-type]
    print(f"{len(rows)} rows; predicted ones: mean absolute error {np.mean(predicted):.1f}% "
          f"({time.perf_counter() - started:.0f} s)")
    if args.markdown:
        print("\n| mechanism | figure | modelled | hardware | error | role |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            error = "" if r["error_pct"] is None else f"{r['error_pct']:+.1f}%"
            print(f"| {r['mechanism']} | {r['what']} | {r['modelled']:.3f} {r['unit']} | "
                  f"{r['hardware']} | {error} | {r['role']} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
