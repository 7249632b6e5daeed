"""Emulator benchmarks: builds bench.c and its DPU programs with the emulator's toolchain,
runs them, and prints each figure as a ratio against its native baseline from the same run.

    .venv/bin/python benchmarks/emulator/run.py [--json results.json]

(a) dpu_push_xfer bandwidth over 64 DPUs, 1..32 MiB each, against memcpy of the same bytes;
(b) synchronous launch latency of an empty program on 1, 64, 256 and 2,560 DPUs, with 1 and
    16 tasklets; (c) a compute-bound program on 64 DPUs x 16 tasklets against the same loop
    compiled natively on all cores; (d) the memory (sum of PSS) of a full 2,560-DPU system;
(e) a DMA-bound kernel (docs/examples/vecadd.c, one DPU, 16 tasklets): host time per DMA,
    where each DMA is a hardware-like switch point, against memcpy of the same bytes;
(f) a barrier-bound kernel (one DPU, 16 tasklets, a short loop and a barrier_wait per
    round): host time per tasklet's wait, against the same kernel without the barrier;
(g) direct MRAM reads (one DPU, 16 tasklets, an `__mram_noinit` array read word by word)
    through MRAM's own address space (gcc's `__seg_gs`, the default) against the same loop
    with MRAM in the ordinary address space (-std=c11), both without cost counting.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pyupmem import emu

HERE = Path(__file__).resolve().parent


def build(workdir: Path) -> dict[str, Path]:
    env = dict(os.environ, PATH=f"{emu.build().bin_dir}:{os.environ['PATH']}")

    def dpu(name: str, source: str, tasklets: int, *flags: str) -> Path:
        out = workdir / name
        subprocess.run(
            [
                "dpu-upmem-dpurte-clang",
                "-O2",
                *flags,
                f"-DNR_TASKLETS={tasklets}",
                "-o",
                str(out),
                str(HERE / source),
            ],
            check=True,
            env=env,
        )
        return out

    flags = subprocess.run(
        ["dpu-pkg-config", "--cflags", "--libs", "dpu"],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    ).stdout.split()
    subprocess.run(
        [
            "cc",
            "-O2",
            "-Wall",
            "-Wextra",
            str(HERE / "bench.c"),
            "-o",
            str(workdir / "bench"),
            "-lpthread",
            *flags,
        ],
        check=True,
        env=env,
    )
    return {
        "bench": workdir / "bench",
        "empty1": dpu("empty1", "empty_dpu.c", 1),
        "empty16": dpu("empty16", "empty_dpu.c", 16),
        "compute": dpu("compute", "compute_dpu.c", 16),
        "compute_uncounted": dpu("compute_uncounted", "compute_dpu.c", 16, "-fpyupmem-no-cost"),
    }


def records(output: str, key: str) -> list[dict[str, float]]:
    rows = []
    for line in output.splitlines():
        tokens = line.split()
        if tokens and tokens[0] == key:
            rows.append({tokens[i]: float(tokens[i + 1]) for i in range(0, len(tokens) - 1, 2)})
    return rows


def run(bench: Path, *args: object) -> str:
    env = dict(os.environ, PYUPMEM_EMU_NR_RANKS="40")
    return subprocess.run(
        [str(bench), *map(str, args)], check=True, capture_output=True, text=True, env=env
    ).stdout


def pss_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def descendants(pid: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents.setdefault(int(stat[stat.rindex(")") + 2 :].split()[1]), []).append(
                int(entry.name)
            )
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def full_system_memory(bench: Path, program: Path) -> dict[str, float]:
    holder = subprocess.Popen(
        [str(bench), "hold", str(program), "2560"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYUPMEM_EMU_NR_RANKS="40"),
    )
    ready = holder.stdout.readline().split()
    pids = [holder.pid, *descendants(holder.pid)]
    memory = pss_kib(pids)
    holder.stdin.write("\n")
    holder.stdin.flush()
    freed = holder.stdout.readline().split()
    holder.wait()
    return {
        "processes": len(pids),
        "pss_gib": memory / 2**20,
        "setup_s": float(ready[3]),
        "free_s": float(freed[1]),
    }


def fastest_seconds(action: Callable[[], object], repetitions: int) -> float:
    """The fastest of ``repetitions`` runs of ``action()``, in seconds."""
    best = float("inf")
    for _ in range(repetitions):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def dma_bound(repetitions: int = 5) -> dict[str, float]:
    import numpy as np

    import pyupmem as pim

    elements = 1 << 22  # int32 per vector: 16 MiB
    program = pim.build_program(
        HERE.parent.parent / "docs" / "examples" / "vecadd.c", nr_tasklets=16, backend="emulator"
    )
    heap = pim.DPU_MRAM_HEAP_POINTER_NAME
    a = np.arange(elements, dtype=np.int32).reshape(1, -1)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.broadcast("nr_bytes", np.uint32(elements * 4))
        dpus.scatter(heap, a)
        dpus.scatter(heap, a, offset=elements * 4)
        launch = fastest_seconds(dpus.launch, repetitions)
        assert (dpus.gather(heap, np.int32, elements, offset=8 * elements) == 2 * a).all()
    source, target = np.ones(3 * elements * 4, np.uint8), np.empty(3 * elements * 4, np.uint8)
    copy = fastest_seconds(lambda: np.copyto(target, source), repetitions)
    dmas = 3 * elements * 4 // 1024  # two reads and a write of 1 KiB blocks
    return {
        "dmas": dmas,
        "launch_ms": launch * 1e3,
        "memcpy_ms": copy * 1e3,
        "ns_per_dma": launch / dmas * 1e9,
        "memcpy_ns_per_kib": copy / dmas * 1e9,
    }


BARRIER_KERNEL = """
#include <barrier.h>
#include <defs.h>
#include <stdint.h>
#include "work.h"
BARRIER_INIT(round_end, NR_TASKLETS);
__host uint32_t rounds;
__host uint32_t results[NR_TASKLETS];
int main(void)
{
    uint32_t acc = 0;
    for (uint32_t r = 0; r < rounds; r++) {
        acc += work(seed_of(r + me()), 16);
#ifndef NO_BARRIER
        barrier_wait(&round_end);
#endif
    }
    results[me()] = acc;
    return 0;
}
"""


def barrier_bound(rounds: int = 20_000, repetitions: int = 5) -> dict[str, float]:
    import numpy as np

    import pyupmem as pim

    best = {}
    outputs = {}
    for variant, defines in (("barrier", {}), ("none", {"NO_BARRIER": None})):
        program = pim.build_program(BARRIER_KERNEL, nr_tasklets=16, defines=defines,
                                    include_dirs=[HERE], backend="emulator")
        with pim.DpuSet(1, backend="emulator") as dpus:
            dpus.load(program)
            dpus.broadcast("rounds", np.uint32(rounds))
            best[variant] = fastest_seconds(dpus.launch, repetitions)
            outputs[variant] = dpus.gather("results", np.uint32, 16)
    assert (outputs["barrier"] == outputs["none"]).all()
    waits = rounds * 16
    return {
        "waits": waits,
        "with_ms": best["barrier"] * 1e3,
        "without_ms": best["none"] * 1e3,
        "ns_per_wait": (best["barrier"] - best["none"]) / waits * 1e9,
        "ns_per_round_of_work": best["none"] / waits * 1e9,
    }


DIRECT_MRAM_KERNEL = """
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#define WORDS (1 << 17)
__mram_noinit uint64_t words[WORDS];
__host uint32_t rounds;
__host uint64_t sums[NR_TASKLETS];
int main(void)
{
    uint64_t sum = 0;
    for (uint32_t r = 0; r < rounds; r++)
        for (uint32_t i = me(); i < WORDS; i += NR_TASKLETS)
            sum += words[i] ^ r;
    sums[me()] = sum;
    return 0;
}
"""


def direct_mram(rounds: int = 40, repetitions: int = 5) -> dict[str, float]:
    """The cost of MRAM as a second address space: the same loop of direct MRAM reads
    through gcc's named address space (the default) and in the ordinary address space
    (-std=c11, where MRAM stays there), both without cost counting, so only the
    addressing differs."""
    import numpy as np

    import pyupmem as pim

    best = {}
    sums = {}
    for variant, standard in (("seg_gs", "-std=gnu11"), ("flat", "-std=c11")):
        program = pim.build_program(DIRECT_MRAM_KERNEL, nr_tasklets=16, backend="emulator",
                                    extra_args=[standard, "-fpyupmem-no-cost"])
        with pim.DpuSet(1, backend="emulator") as dpus:
            dpus.load(program)
            dpus.broadcast("words", np.arange(1 << 17, dtype=np.uint64))
            dpus.broadcast("rounds", np.uint32(rounds))
            best[variant] = fastest_seconds(dpus.launch, repetitions)
            sums[variant] = dpus.gather("sums", np.uint64, 16)
    assert (sums["seg_gs"] == sums["flat"]).all()
    reads = rounds * (1 << 17)
    return {
        "reads": reads,
        "seg_gs_ms": best["seg_gs"] * 1e3,
        "flat_ms": best["flat"] * 1e3,
        "seg_gs_ns_per_read": best["seg_gs"] / reads * 1e9,
        "flat_ns_per_read": best["flat"] / reads * 1e9,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--iterations", type=int, default=2_000_000, help="loop iterations per tasklet in (c)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        binaries = build(Path(workdir))
        results: dict[str, object] = {}
        print("(a) dpu_push_xfer over 64 DPUs against memcpy of the same bytes (GiB/s, best of 3)")
        rows = records(run(binaries["bench"], "bandwidth", binaries["empty1"]), "bandwidth_mib")
        for row in rows:
            print(
                f"  {int(row['bandwidth_mib']):3d} MiB/DPU  to DPU {row['to_gibs']:5.2f} "
                f"({row['to_gibs'] / row['memcpy_gibs']:.2f}x memcpy)  from DPU "
                f"{row['from_gibs']:5.2f} ({row['from_gibs'] / row['memcpy_gibs']:.2f}x)  "
                f"memcpy {row['memcpy_gibs']:5.2f}"
            )
        results["bandwidth"] = rows
        print("(b) synchronous launch of an empty program (median of 50)")
        rows = records(
            run(binaries["bench"], "latency", binaries["empty1"], binaries["empty16"]),
            "latency_dpus",
        )
        for row in rows:
            print(
                f"  {int(row['latency_dpus']):5d} DPUs x {int(row['tasklets']):2d} tasklets: "
                f"{row['median_ms']:7.3f} ms (p90 {row['p90_ms']:.3f})"
            )
        results["latency"] = rows
        print("(c) compute-bound: 64 DPUs x 16 tasklets against the native loop on all cores")
        for key, what in (
            ("compute", "with cost counting (the default)"),
            ("compute_uncounted", "without cost counting (-fpyupmem-no-cost)"),
        ):
            row = records(
                run(binaries["bench"], "compute", binaries[key], args.iterations), "compute_cores"
            )[0]
            print(
                f"  {what}: emulator {row['emulator_s']:.3f} s, native "
                f"({int(row['compute_cores'])} threads) {row['native_s']:.3f} s: "
                f"{row['native_s'] / row['emulator_s']:.2f}x native speed, "
                f"same results: {bool(row['same_results'])}"
            )
            results[key] = row
        print("(d) a full system: 2,560 DPUs allocated, loaded (16 tasklets), launched")
        row = full_system_memory(binaries["bench"], binaries["empty16"])
        print(
            f"  {row['processes']} processes, {row['pss_gib']:.2f} GiB (sum of PSS), "
            f"alloc+load+launch {row['setup_s']:.2f} s, free {row['free_s']:.2f} s"
        )
        results["full_system"] = row
        print("(e) DMA-bound: vecadd.c on one DPU x 16 tasklets, 16 MiB per vector (best of 5)")
        row = dma_bound()
        print(
            f"  {row['launch_ms']:.2f} ms per launch for {int(row['dmas'])} DMAs of 1 KiB: "
            f"{row['ns_per_dma']:.0f} ns of host time per DMA, everything included (the copy, the "
            f"switch to the next tasklet, the kernel's loop); memcpy of the same bytes: "
            f"{row['memcpy_ms']:.2f} ms, {row['memcpy_ns_per_kib']:.0f} ns per KiB"
        )
        results["dma_bound"] = row
        print("(f) barrier-bound: one DPU x 16 tasklets, 20,000 rounds of a 16-iteration loop "
              "and a barrier_wait (best of 5)")
        row = barrier_bound()
        print(
            f"  {row['with_ms']:.2f} ms per launch, {row['without_ms']:.2f} ms without the "
            f"barrier: {row['ns_per_wait']:.0f} ns of host time per tasklet's wait (the time "
            f"model's work, the switch to the next tasklet, the release), against "
            f"{row['ns_per_round_of_work']:.0f} ns for a tasklet's round of work"
        )
        results["barrier_bound"] = row
        print("(g) direct MRAM reads: one DPU x 16 tasklets, 40 passes over 1 MiB of __mram_noinit "
              "words, in MRAM's own address space against the ordinary one (best of 5)")
        row = direct_mram()
        print(
            f"  {row['seg_gs_ns_per_read']:.2f} ns per read through __mram (gcc's __seg_gs), "
            f"{row['flat_ns_per_read']:.2f} ns in the ordinary address space (-std=c11): "
            f"{row['flat_ms'] / row['seg_gs_ms']:.2f}x the ordinary address space's speed"
        )
        results["direct_mram"] = row
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
