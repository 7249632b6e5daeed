"""The host transfers of seven PrIM workloads, each at its own bytes per DPU, against
hardware.

Issue 25 gives, for seven PrIM workloads at 1, 4, 16 and 64 DPUs (16 tasklets), the
hardware's CPU-DPU and DPU-CPU times as ratios to what the time model v2 (commit faae5d0)
gave. The runs are those uPIMulator was validated on (its multi-DPU figure): strong
scaling at the sizes its README lists (VA 2,097,152 elements, GEMV 4,096 rows of 64,
HST-S 524,288 pixels, RED 2,097,152 int64, BS 131,072 int64 and 16,384 queries,
SCAN-SSA 1,048,576 int64, TRNS M_ = 128), each transfer as PrIM's host code makes it:
its calls, their direction, their bytes per DPU and the memory they reach. So each row
rebuilds the hardware's time (ratio x v2's time of those calls) and sets the model's
beside it. The transfer constants were set from these rows (they are "set" rows).

    .venv/bin/python benchmarks/timing/prim_transfers.py
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pyupmem as pim

DPUS = (1, 4, 16, 64)
# kind ("scatter", "broadcast": one host buffer to every DPU, "gather"), bytes per DPU,
# calls, memory
Call = tuple[str, int, int, str]


def _va(d: int) -> tuple[list[Call], list[Call]]:
    part = 2_097_152 * 4 // d  # two int32 vectors in, their sum out
    return ([("scatter", 12, 1, "wram"), ("scatter", part, 2, "mram")],
            [("gather", part, 1, "mram")])


def _gemv(d: int) -> tuple[list[Call], list[Call]]:
    rows = 4096  # 64 int32 columns; each DPU gets its rows and the whole vector (one buffer)
    return ([("scatter", 16, 1, "wram"), ("scatter", rows * 64 * 4 // d, 1, "mram"),
             ("broadcast", 64 * 4, 1, "mram")],
            [("gather", rows * 4 // d, 1, "mram")])


def _hst_s(d: int) -> tuple[list[Call], list[Call]]:
    return ([("scatter", 16, 1, "wram"), ("scatter", 524_288 * 4 // d, 1, "mram")],
            [("gather", 256 * 4, 1, "mram")])  # 256 bins of each DPU


def _red(d: int) -> tuple[list[Call], list[Call]]:
    return ([("scatter", 16, 1, "wram"), ("scatter", 2_097_152 * 8 // d, 1, "mram")],
            [("gather", 16 * 16, 1, "wram")])  # a result per tasklet, in WRAM


def _bs(d: int) -> tuple[list[Call], list[Call]]:
    # the whole array to each DPU, every DPU's buffer the same: a broadcast (v2 pushed it)
    return ([("scatter", 20, 1, "wram"), ("broadcast", 131_072 * 8, 1, "mram"),
             ("scatter", 16_384 * 8 // d, 1, "mram")],
            [("gather", 128, 1, "wram")])


def _scan_ssa(d: int) -> tuple[list[Call], list[Call]]:
    part = 1_048_576 * 8 // d
    return ([("scatter", 16, 1, "wram"), ("scatter", part, 1, "mram")],
            [("gather", part, 1, "mram")])


def _trns(d: int) -> tuple[list[Call], list[Call]]:
    rounds = 64 // d  # N_ = 64 tiles of columns, d at a time; a 64-byte push per row
    return ([("scatter", 16, 1, "wram"), ("scatter", 8 * 8, 128 * 4 * rounds, "mram")],
            [("gather", 128 * 4 * 8 * 8, rounds, "mram")])


WORKLOADS: dict[str, Callable[[int], tuple[list[Call], list[Call]]]] = {
    "VA": _va, "GEMV": _gemv, "HST-S": _hst_s, "RED": _red, "BS": _bs,
    "SCAN-SSA": _scan_ssa, "TRNS": _trns,
}
# Hardware time / v2's time (issue 25): CPU-DPU, then DPU-CPU, at 1, 4, 16 and 64 DPUs.
HARDWARE_OVER_V2 = {
    "VA": ((0.59, 1.11, 1.53, 1.47), (1.10, 2.06, 2.58, 2.87)),
    "GEMV": ((0.46, 0.93, 1.14, 0.95), (1.08, 1.67, 1.81, 1.81)),
    "HST-S": ((1.01, 1.04, 1.30, 1.17), (1.16, 1.06, 1.39, 1.63)),
    "RED": ((0.69, 1.19, 1.73, 1.31), (1.33, 1.53, 3.11, 11.1)),
    "BS": ((0.98, 0.62, 1.21, 0.67), (0.87, 0.90, 1.74, 6.35)),
    "SCAN-SSA": ((0.54, 0.90, 1.30, 1.43), (1.08, 1.97, 2.82, 3.20)),
    "TRNS": ((0.54, 0.56, 0.57, 0.62), (1.62, 2.40, 3.15, 3.49)),
}


def v2_seconds(kind: str, bytes_per_dpu: int, dpus: int, memory: str) -> float:
    """One call's time in the model v2 (faae5d0's ``emu_transfer_seconds``, one rank):
    0.1 ms a call, and a rank rate from one DPU's to 64's on log axes, through 4 DPUs'
    1.6 GB/s; WRAM and MRAM alike, and a push of one buffer to every DPU as any push. It
    gives the figures measured on that commit (1 MiB per DPU pushed to 1 and 64 DPUs,
    gathered from 4 and 16; 64 bytes to 64) to 1e-15."""
    del memory
    kind = "scatter" if kind == "broadcast" else kind
    four = math.log(1.6 / 0.33) / math.log(6.68 / 0.33)
    x = math.log2(max(1, min(64, dpus)))
    share = four * x / 2 if x <= 2 else four + (1 - four) * (x - 2) / 4
    one, rank = (0.33, 6.68) if kind == "scatter" else (0.12, 4.74)
    return 100e-6 + dpus * bytes_per_dpu / (one * (rank / one) ** share * 1e9)


def now_seconds(kind: str, bytes_per_dpu: int, dpus: int, memory: str) -> float:
    """One call's time in the model as it is (pyupmem's estimate)."""
    return pim.estimate.model.transfer_seconds(kind, bytes_per_dpu, dpus, memory)


def phase_seconds(calls: list[Call], dpus: int, model: Callable[..., float]) -> float:
    return sum(count * model(kind, size, dpus, memory) for kind, size, count, memory in calls)


def rows() -> list[dict[str, object]]:
    """A row per workload, direction and DPU count: the hardware's time rebuilt, the
    model's, and the error."""
    result = []
    for name, shape in WORKLOADS.items():
        for i, dpus in enumerate(DPUS):
            for phase, calls in zip(("CPU-DPU", "DPU-CPU"), shape(dpus), strict=True):
                ratio = HARDWARE_OVER_V2[name][phase == "DPU-CPU"][i]
                hardware = ratio * phase_seconds(calls, dpus, v2_seconds)
                modelled = phase_seconds(calls, dpus, now_seconds)
                result.append({"workload": name, "phase": phase, "dpus": dpus,
                               "hardware_ms": hardware * 1e3, "modelled_ms": modelled * 1e3,
                               "error_pct": 100.0 * (modelled / hardware - 1)})
    return result


def mean_errors(table: list[dict[str, object]]) -> dict[str, float]:
    """Mean absolute error (%) of each phase over the rows."""
    return {phase: sum(abs(r["error_pct"]) for r in table if r["phase"] == phase)  # type: ignore[misc, arg-type]
            / sum(1 for r in table if r["phase"] == phase)
            for phase in ("CPU-DPU", "DPU-CPU")}


def markdown(table: list[dict[str, object]]) -> str:
    lines = ["| workload | phase | error at 1 / 4 / 16 / 64 DPUs | hardware ms at 1 / 64 |",
             "|---|---|---|---|"]
    for name in WORKLOADS:
        for phase in ("CPU-DPU", "DPU-CPU"):
            mine = [r for r in table if r["workload"] == name and r["phase"] == phase]
            errors = " / ".join(f"{r['error_pct']:+.0f}%" for r in mine)
            lines.append(f"| {name} | {phase} | {errors} | "
                         f"{mine[0]['hardware_ms']:.3f} / {mine[-1]['hardware_ms']:.3f} |")
    return "\n".join(lines)


def main() -> None:
    table = rows()
    print(markdown(table))
    errors = mean_errors(table)
    print(f"\n{len(table)} rows; mean absolute error: CPU-DPU {errors['CPU-DPU']:.1f}%, "
          f"DPU-CPU {errors['DPU-CPU']:.1f}%")


if __name__ == "__main__":
    main()
