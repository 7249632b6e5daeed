"""The emulator's time model against the published UPMEM measurements.

Builds kernels.c (microbenchmarks in the style of the PrIM characterisation: arithmetic
throughput, MRAM read/write bandwidth, STREAM) with the emulator's toolchain, runs each
on one emulated DPU, and sets the modelled figure beside the published one
(UPMEM_ABI.md section 5; Gomez-Luna et al., IEEE Access 2022):

    .venv/bin/python benchmarks/timing/run.py [--json timing.json] [--markdown]

Each figure is the modelled DPU cycles of the measured region (between two barriers,
read with perfcounter_get by the program itself) at the modelled 350 MHz clock.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import pyupmem as pim

HERE = Path(__file__).resolve().parent
CLOCK_HZ = 350e6
WRAM_VALUES = 256
MRAM_BYTES = 1 << 20

# MOPS of one DPU at saturation (16+ tasklets); INT32 ADD also at 1 and 11 tasklets.
ARITHMETIC = {
    ("int32_t", "ADD"): 58.56,
    ("int32_t", "SUB"): 58.5,
    ("int32_t", "MUL"): 10.27,
    ("int32_t", "DIV"): 11.26,
    ("int64_t", "ADD"): 50.16,
    ("int64_t", "SUB"): 50.17,
    ("int64_t", "MUL"): 2.58,
    ("int64_t", "DIV"): 1.40,
    ("float", "ADD"): 4.92,
    ("float", "SUB"): 4.60,
    ("float", "MUL"): 1.91,
    ("float", "DIV"): 0.34,
    ("double", "ADD"): 3.33,
    ("double", "SUB"): 3.12,
    ("double", "MUL"): 0.53,
    ("double", "DIV"): 0.165,
}
INT32_ADD_BY_TASKLETS = {1: 5.28, 11: 58.1, 16: 58.56}
# MB/s of one DPU by transfer size (16 tasklets)
MRAM_READ = {8: 34, 16: 64, 32: 113, 64: 201, 128: 307, 256: 417, 512: 536, 1024: 604, 2048: 628}
MRAM_WRITE = {8: 43, 16: 80, 32: 143, 64: 241, 128: 354, 256: 468, 512: 557, 1024: 620, 2048: 633}
# MB/s of one DPU, int64 over MRAM, 16 tasklets; (published, words moved per element)
STREAM = {"COPY": (624, 2), "ADD": (622, 3), "SCALE": (42, 2), "TRIAD": (62, 3)}


def build(name: str, tasklets: int, *defines: str) -> pim.Program:
    """One variant of ``kernels.c`` (``NAME`` or ``NAME=value`` defines), built as every
    DPU program is (:func:`pyupmem.build_program`, cached between runs)."""
    macros = dict(d.split("=", 1) if "=" in d else (d, None) for d in defines)
    return pim.build_program(HERE / "kernels.c", nr_tasklets=tasklets, defines=macros,
                             debug=False, name=f"{name}-{tasklets}", backend="emulator")


def modelled_seconds(binary: pim.Program, repeat: int, size: int = 0) -> float:
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(binary)
        dpus.broadcast("repeat", np.uint32(repeat))
        dpus.broadcast("size", np.uint32(size))
        dpus.launch()
        if not dpus.estimate().counted:
            raise SystemExit("the kernels were built without cost counting (x86-64 only)")
        cycles = int(dpus.gather("cycles", np.uint64, 1)[0, 0])
    return cycles / CLOCK_HZ


def row(what: str, modelled: float, published: float, unit: str) -> dict[str, object]:
    error = 100.0 * (modelled - published) / published
    print(
        f"  {what:<28} modelled {modelled:9.3f} {unit:<5} "
        f"published {published:9.3f}  {error:+6.1f}%"
    )
    return {
        "what": what,
        "modelled": modelled,
        "published": published,
        "unit": unit,
        "error_pct": error,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument("--markdown", action="store_true", help="also print a markdown table")
    args = parser.parse_args()
    rows: list[dict[str, object]] = []
    started = time.perf_counter()
    print("Arithmetic throughput of one DPU (MOPS), x[i] = x[i] OP scalar over WRAM")
    for (ctype, op), published in ARITHMETIC.items():
        for tasklets in (1, 4, 11, 16):
            binary = build(
                f"arith-{ctype}-{op}",
                tasklets,
                "KERNEL_ARITH",
                f"OP_{op}",
                f"TYPE={ctype}",
            )
            repeat = 4 if published > 5 else 1
            seconds = modelled_seconds(binary, repeat)
            mops = tasklets * repeat * WRAM_VALUES / seconds / 1e6
            reference = (
                INT32_ADD_BY_TASKLETS.get(tasklets)
                if (ctype, op) == ("int32_t", "ADD")
                else None
            )
            if tasklets == 16:
                rows.append(row(f"{ctype} {op}, 16 tasklets", mops, published, "MOPS"))
            elif reference is not None:
                rows.append(row(f"{ctype} {op}, {tasklets} tasklets", mops, reference, "MOPS"))
            else:
                print(
                    f"  {f'{ctype} {op}, {tasklets} tasklets':<28} modelled {mops:9.3f} MOPS"
                )
    print("MRAM bandwidth of one DPU (MB/s), 16 tasklets")
    for kind, table in (("READ", MRAM_READ), ("WRITE", MRAM_WRITE)):
        for size, published in table.items():
            binary = build(f"mram-{kind}", 16, f"KERNEL_{kind}")
            repeat = 64
            seconds = modelled_seconds(binary, repeat, size)
            rows.append(
                row(
                    f"MRAM {kind.lower()} {size} B",
                    16 * repeat * size / seconds / 1e6,
                    published,
                    "MB/s",
                )
            )
    print("STREAM over MRAM, int64, one DPU (MB/s), 16 tasklets")
    for kernel, (published, words) in STREAM.items():
        binary = build(f"stream-{kernel}", 16, "KERNEL_STREAM", f"STREAM_{kernel}")
        seconds = modelled_seconds(binary, 1)
        moved = words * MRAM_BYTES
        rows.append(row(f"STREAM {kernel}", moved / seconds / 1e6, published, "MB/s"))
    errors = [abs(float(r["error_pct"])) for r in rows]
    print(
        f"{len(rows)} figures: mean absolute error {np.mean(errors):.1f}%, "
        f"largest {max(errors):.1f}%, "
        f"{sum(e <= 20 for e in errors)} within 20%  ({time.perf_counter() - started:.0f} s)"
    )
    if args.markdown:
        print("\n| figure | modelled | published | error |\n|---|---|---|---|")
        for r in rows:
            print(
                f"| {r['what']} | {r['modelled']:.2f} {r['unit']} | {r['published']} "
                f"| {r['error_pct']:+.1f}% |"
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
