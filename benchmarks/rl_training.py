"""Training speed: the DPU learners (on whatever backend pyupmem picks, the emulator when
there is no hardware) against the vectorised numpy baseline and the pure-Python
reference, on the same data with the same settings, in the same run.

For each number format (FP32, INT32) and layout (block, stride) it trains Q-learning on
the same dataset with the three trainers, checks that their tables are equal bit for
bit, and reports updates per second (``epochs * transitions / seconds``):

* DPU, whole run: the four phases (CPU-DPU, DPU kernel, Inter-DPU, DPU-CPU), without
  the one-off setup (building the cached program, allocating and loading the DPUs);
* DPU, kernel only: the launches alone;
* numpy: :func:`rl.baseline.train_baseline` (all learners stepped together);
* Python: :func:`rl.reference.train_reference` (one transition at a time).

Targets: DPU (whole run) at least 3x numpy and 50x Python. Run::

    .venv/bin/python benchmarks/rl_training.py
    .venv/bin/python benchmarks/rl_training.py --env Taxi-v3   # tables in MRAM
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyupmem  # noqa: E402
from rl.baseline import train_baseline  # noqa: E402
from rl.datasets import collect  # noqa: E402
from rl.reference import train_reference  # noqa: E402
from rl.trainer import Trainer  # noqa: E402


def _best(fn, repeats: int):
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table; returns 0 when every target is met."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", default="FrozenLake-v1")
    p.add_argument("--transitions", "-n", type=int, default=1_000_000)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--dpus", type=int, default=64)
    p.add_argument("--tasklets", type=int, default=16)
    p.add_argument("--repeats", type=int, default=3, help="best of N (DPU and numpy)")
    p.add_argument("--json", help="also write the figures to this file")
    args = p.parse_args(argv)

    ds = collect(args.env, args.transitions, seed=0)
    updates = args.epochs * len(ds)
    settings = dict(algorithm="qlearning", n_dpus=args.dpus, n_tasklets=args.tasklets,
                    epochs=args.epochs, sync_every=1, segments=1, combine="weighted",
                    alpha=0.1, gamma=0.99)
    rows = []
    for fmt in ("fp32", "int32"):
        for layout in ("block", "stride"):
            kw = dict(settings, fmt=fmt, layout=layout)
            trainer = Trainer(
                algorithm="qlearning", fmt=fmt, layout=layout, nr_dpus=args.dpus,
                nr_tasklets=args.tasklets, epochs=args.epochs, sync_every=1, segments=1,
                combine="weighted", alpha=0.1, gamma=0.99, progress=False,
            )
            trainer.train(ds)  # build and cache the program variant
            runs = [trainer.train(ds) for _ in range(args.repeats)]
            dpu = min(runs, key=lambda r: r.seconds)
            kernel = min(r.timer.stats()[pyupmem.DPU_KERNEL].mean for r in runs)
            t_np, base = _best(lambda kw=kw: train_baseline(ds, **kw), args.repeats)
            t_py, ref = _best(lambda kw=kw: train_reference(ds, **kw), 1)
            same = all(
                a.table.tobytes() == b.table.tobytes() and a.tables.tobytes() == b.tables.tobytes()
                for a, b in ((dpu, base), (dpu, ref))
            )
            rows.append(dict(
                fmt=fmt, layout=layout, tables_in=dpu.tables_in, same=same,
                dpu=updates / dpu.seconds, kernel=updates / kernel,
                numpy=updates / t_np, python=updates / t_py,
            ))
            print(f"  measured {fmt}/{layout}", file=sys.stderr, flush=True)

    print(f"\nQ-learning on {args.env}: {len(ds):,} transitions x {args.epochs} epochs, "
          f"{args.dpus} DPUs x {args.tasklets} tasklets = {args.dpus * args.tasklets} "
          f"learners, sync every epoch, backend {pyupmem.default_backend().kind}")
    header = (f"{'format':<6} {'layout':<7} {'tables':<6} {'DPU run':>10} {'DPU kernel':>11} "
              f"{'numpy':>9} {'Python':>9} {'vs numpy':>9} {'vs Python':>10} {'equal':>6}")
    print("updates per second (M = 10^6)")
    print(header)
    print("-" * len(header))
    ok = True
    for r in rows:
        vs_np, vs_py = r["dpu"] / r["numpy"], r["dpu"] / r["python"]
        ok &= vs_np >= 3 and vs_py >= 50 and r["same"]
        print(f"{r['fmt']:<6} {r['layout']:<7} {r['tables_in']:<6} {r['dpu'] / 1e6:>9.1f}M "
              f"{r['kernel'] / 1e6:>10.1f}M {r['numpy'] / 1e6:>8.2f}M {r['python'] / 1e6:>8.2f}M "
              f"{vs_np:>8.1f}x {vs_py:>9.0f}x {'yes' if r['same'] else 'NO':>6}")
    print("-" * len(header))
    for layout in ("block", "stride"):
        f32 = next(r for r in rows if r["fmt"] == "fp32" and r["layout"] == layout)
        i32 = next(r for r in rows if r["fmt"] == "int32" and r["layout"] == layout)
        print(f"INT32/FP32 ({layout}): whole run {i32['dpu'] / f32['dpu']:.2f}x, "
              f"kernel {i32['kernel'] / f32['kernel']:.2f}x")
    print(f"targets (DPU run >= 3x numpy, >= 50x Python, equal tables): "
          f"{'met' if ok else 'NOT met'}")
    if args.json:
        Path(args.json).write_text(json.dumps(dict(vars(args), rows=rows), indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
