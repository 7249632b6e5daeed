"""Python versus C: the same vector addition driven by pyupmem and by a C host program.

Both sides run docs/examples/vecadd.c on the DPUs (C = A + B on int32), with the same
transfers (broadcast of the size, two scatters of one vector part per DPU, one gather)
and the same phases, in one run, alternating C and Python for ``--rounds`` rounds. The C
host is built with the backend's own toolchain (``dpu-pkg-config``). Reported: the mean
time per phase (median over rounds), the ratio of total times, and the per-call time of
an 8-byte ``dpu_copy_to`` to one DPU.

Run it (defaults: 64 DPUs, 8 MiB per vector per DPU, i.e. 16 MiB in and 8 MiB out)::

    python benchmarks/python_vs_c_vecadd.py
    python benchmarks/python_vs_c_vecadd.py --dpus 64 --mib 8 --reps 5 --rounds 3 --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import pyupmem as pim

ROOT = Path(__file__).resolve().parent.parent
DPU_SOURCE = ROOT / "docs" / "examples" / "vecadd.c"
HOST_SOURCE = Path(__file__).resolve().parent / "python_vs_c_vecadd_host.c"
HEAP = pim.DPU_MRAM_HEAP_POINTER_NAME
FIGURES = ("cpu_dpu", "kernel", "dpu_cpu", "copy8")


def build_c_host(backend: pim.Backend, folder: Path) -> Path:
    """Compile the C host with the backend's ``dpu-pkg-config`` and return the binary."""
    pkg_config = None
    if backend.root is not None and (backend.root / "bin" / "dpu-pkg-config").is_file():
        pkg_config = str(backend.root / "bin" / "dpu-pkg-config")
    pkg_config = pkg_config or shutil.which("dpu-pkg-config")
    if pkg_config is None:
        raise SystemExit('no dpu-pkg-config found: eval "$(python -m pyupmem env)" first')
    flags = subprocess.run(
        [pkg_config, "--cflags", "--libs", "dpu"], check=True, capture_output=True, text=True
    ).stdout.split()
    binary = folder / "vecadd_host"
    subprocess.run(
        [os.environ.get("CC", "cc"), "-O2", "-o", str(binary), str(HOST_SOURCE), *flags],
        check=True,
    )
    return binary


def run_c(host: Path, program: pim.Program, args: argparse.Namespace) -> dict[str, float]:
    """Run the C host once; return its mean phase times and 8-byte copy time, in seconds."""
    result = subprocess.run(
        [
            str(host),
            str(program.path),
            str(args.dpus),
            str(args.mib << 20),
            str(args.reps),
            str(args.warmup),
            str(args.calls),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(result.stdout)


def run_python(program: pim.Program, args: argparse.Namespace) -> dict[str, float]:
    """Run the Python side once; return its mean phase times and 8-byte copy time."""
    nr_bytes = args.mib << 20
    per_dpu = nr_bytes // 4
    total = args.dpus * per_dpu
    index = np.arange(total, dtype=np.uint32)
    a = ((index * np.uint32(2654435761)).view(np.int32) >> 2).reshape(args.dpus, per_dpu)
    b = ((index * np.uint32(40503)).view(np.int32) >> 2).reshape(args.dpus, per_dpu)
    c = np.zeros((args.dpus, per_dpu), np.int32)
    size = np.uint32(nr_bytes)
    timer = pim.PhaseTimer(warmup=args.warmup)
    with pim.DpuSet(args.dpus) as dpus:
        dpus.load(program)
        for _ in timer.repetitions(args.reps):
            with timer.phase(pim.CPU_DPU):
                dpus.broadcast("nr_bytes", size)
                dpus.scatter(HEAP, a)
                dpus.scatter(HEAP, b, offset=nr_bytes)
            with timer.phase(pim.DPU_KERNEL):
                dpus.launch()
            with timer.phase(pim.DPU_CPU):
                dpus.gather(HEAP, offset=2 * nr_bytes, out=c)
        if not np.array_equal(c, a + b):
            raise SystemExit("the Python side computed a wrong result")

        first = dpus[0]
        value = np.array([42], np.uint64)
        for _ in range(args.calls // 10):
            first.write(HEAP, value)
        start = time.perf_counter()
        for _ in range(args.calls):
            first.write(HEAP, value)
        copy8 = (time.perf_counter() - start) / args.calls
    stats = timer.stats()
    return {
        "cpu_dpu": stats[pim.CPU_DPU].mean,
        "kernel": stats[pim.DPU_KERNEL].mean,
        "dpu_cpu": stats[pim.DPU_CPU].mean,
        "copy8": copy8,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print (or return as JSON) the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dpus", type=int, default=64)
    parser.add_argument("--mib", type=int, default=8, help="MiB per vector per DPU")
    parser.add_argument("--tasklets", type=int, default=16)
    parser.add_argument("--reps", type=int, default=5, help="measured repetitions per round")
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3, help="C/Python alternations")
    parser.add_argument("--calls", type=int, default=100_000, help="8-byte copies timed")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args(argv)

    backend = pim.default_backend()
    program = pim.build_program(DPU_SOURCE, nr_tasklets=args.tasklets)
    with tempfile.TemporaryDirectory() as folder:
        host = build_c_host(backend, Path(folder))
        rounds: dict[str, list[dict[str, float]]] = {"c": [], "python": []}
        for _ in range(args.rounds):
            rounds["c"].append(run_c(host, program, args))
            rounds["python"].append(run_python(program, args))

    result: dict[str, object] = {
        "backend": backend.kind,
        "dpus": args.dpus,
        "mib_per_vector_per_dpu": args.mib,
        "tasklets": args.tasklets,
        "reps": args.reps,
        "rounds": args.rounds,
        "cpu_count": os.cpu_count(),
    }
    for side in ("c", "python"):
        medians = {f: statistics.median(r[f] for r in rounds[side]) for f in FIGURES}
        medians["total"] = medians["cpu_dpu"] + medians["kernel"] + medians["dpu_cpu"]
        result[side] = medians
    c, py = result["c"], result["python"]
    assert isinstance(c, dict) and isinstance(py, dict)
    result["total_ratio"] = py["total"] / c["total"]
    result["copy8_us"] = {"c": c["copy8"] * 1e6, "python": py["copy8"] * 1e6}

    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    moved = args.dpus * args.mib
    print(
        f"vector addition on {args.dpus} DPUs ({backend.kind}), {args.mib} MiB per vector "
        f"per DPU: {2 * moved} MiB in, {moved} MiB out; {args.tasklets} tasklets; "
        f"median of {args.rounds} rounds of {args.reps} repetitions"
    )
    print(f"{'phase':<12} {'C ms':>10} {'Python ms':>10} {'Python/C':>9}")
    for key, label in (
        ("cpu_dpu", "CPU-DPU"),
        ("kernel", "DPU kernel"),
        ("dpu_cpu", "DPU-CPU"),
        ("total", "total"),
    ):
        print(f"{label:<12} {c[key] * 1e3:>10.2f} {py[key] * 1e3:>10.2f} {py[key] / c[key]:>8.3f}x")
    print(
        f"8-byte dpu_copy_to per call: C {c['copy8'] * 1e6:.3f} us, "
        f"Python {py['copy8'] * 1e6:.3f} us (+{(py['copy8'] - c['copy8']) * 1e6:.3f} us)"
    )
    print(f"total time ratio Python/C: {result['total_ratio']:.3f} (target <= 1.1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
