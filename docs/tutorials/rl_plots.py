"""The figures of the RL tutorial, measured on real training runs on the DPUs.

Run from the repository root (a few minutes on the emulator; on hardware, with
``PYUPMEM_BACKEND=sdk``, it measures the hardware)::

    .venv/bin/python docs/tutorials/rl_plots.py            # writes docs/_static/rl/*.png
    .venv/bin/python docs/tutorials/rl_plots.py --quick --out /tmp/plots   # a small check

It writes ``learning_curve.png`` (quality against epochs), ``time_breakdown.png`` (the
four phases), ``scaling.png`` (time against the number of DPUs) and the measurements
they come from, ``measurements.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
PHASE_NAMES = ("CPU-DPU", "DPU kernel", "Inter-DPU", "DPU-CPU")
# (label, algorithm, fmt, layout) of the learning-curve runs.
CONFIGS = (
    ("Q-learning, FP32, block", "qlearning", "fp32", "block"),
    ("Q-learning, FP32, stride", "qlearning", "fp32", "stride"),
    ("Q-learning, INT32, block", "qlearning", "int32", "block"),
    ("Q-learning, INT32, stride", "qlearning", "int32", "stride"),
    ("SARSA, FP32, block", "sarsa", "fp32", "block"),
)


def measure(
    env_id: str,
    transitions: int,
    epochs: list[int],
    dpus: list[int],
    scaling_epochs: int,
    episodes: int,
    nr_dpus: int = 64,
    nr_tasklets: int = 16,
) -> dict:
    """Train and evaluate; returns the measurements the figures are drawn from."""
    from rl import datasets, evaluation
    from rl.baseline import train_baseline
    from rl.trainer import Trainer

    data = datasets.collect(env_id, transitions, seed=0)
    out: dict = {
        "env": env_id,
        "transitions": transitions,
        "nr_dpus": nr_dpus,
        "nr_tasklets": nr_tasklets,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "epochs": epochs,
        "quality": {},
        "breakdown": {},
    }
    for label, algorithm, fmt, layout in CONFIGS:
        rates = []
        for n in epochs:
            trainer = Trainer(
                algorithm=algorithm,
                fmt=fmt,
                layout=layout,
                nr_dpus=nr_dpus,
                nr_tasklets=nr_tasklets,
                epochs=n,
                progress=False,
            )
            result = trainer.train(data)
            rate = evaluation.compare_to_optimal(env_id, result.table, episodes=episodes)
            rates.append(rate.success_fraction)
            print(
                f"{label:26s} {n:3d} epochs: {rate.success_fraction:6.1%} of optimal",
                flush=True,
            )
        out["quality"][label] = rates
        stats = result.timer.stats()  # the run with the most epochs
        out["breakdown"][label] = {name: stats[name].mean for name in PHASE_NAMES if name in stats}

    scaling = {"dpus": dpus, "seconds": [], "kernel": [], "epochs": scaling_epochs}
    for n in dpus:
        result = Trainer(
            nr_dpus=n,
            nr_tasklets=nr_tasklets,
            epochs=scaling_epochs,
            progress=False,
        ).train(data)
        scaling["seconds"].append(result.seconds)
        scaling["kernel"].append(result.timer.stats()["DPU kernel"].mean)
        print(f"{n:4d} DPUs: {result.seconds:.3f} s", flush=True)
    start = time.perf_counter()
    train_baseline(
        data,
        n_dpus=1,
        n_tasklets=nr_tasklets,
        epochs=scaling_epochs,
        sync_every=1,
        combine="weighted",
        gamma=0.99,
    )
    scaling["baseline_seconds"] = time.perf_counter() - start
    scaling["baseline_learners"] = nr_tasklets
    out["scaling"] = scaling
    return out


def sample_measurements() -> dict:
    """Made-up measurements of the right shape (for checking the figures quickly)."""
    epochs = [1, 5, 10]
    return {
        "env": "Taxi-v3",
        "transitions": 1000,
        "nr_dpus": 4,
        "nr_tasklets": 4,
        "machine": "example",
        "epochs": epochs,
        "quality": {label: [0.1, 0.5, 0.9] for label, *_ in CONFIGS},
        "breakdown": {label: dict.fromkeys(PHASE_NAMES, 0.01) for label, *_ in CONFIGS},
        "scaling": {
            "dpus": [1, 2, 4],
            "seconds": [1.0, 0.6, 0.5],
            "kernel": [0.9, 0.5, 0.4],
            "epochs": 2,
            "baseline_seconds": 2.0,
            "baseline_learners": 4,
        },
    }


def make_figures(m: dict) -> dict[str, plt.Figure]:
    """The figures, by file name (without .png)."""
    figures = {}
    setting = (
        f"{m['env']}, {m['transitions']:,} transitions, "
        f"{m['nr_dpus']} DPUs x {m['nr_tasklets']} tasklets"
    )

    fig, ax = plt.subplots(figsize=(7.2, 4.2), layout="constrained")
    for (label, algorithm, fmt, _layout), marker in zip(CONFIGS, "oosvD", strict=True):
        # INT32 lines are dotted with hollow markers: where they lie on the FP32 ones,
        # both stay visible.
        style = "--" if algorithm == "sarsa" else ":" if fmt == "int32" else "-"
        ax.plot(
            m["epochs"],
            [100 * r for r in m["quality"][label]],
            style,
            marker=marker,
            markersize=9 if fmt == "int32" else 5,
            linewidth=2 if fmt == "int32" else 1.5,
            markerfacecolor="none" if fmt == "int32" else None,
            label=label,
        )
    ax.set_title(f"Learning quality against epochs\n{setting}", fontsize=10)
    ax.set_xlabel("epochs (passes over the dataset)")
    ax.set_ylabel("success rate (% of the optimal policy's)")
    ax.set_ylim(-3, 105)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    figures["learning_curve"] = fig

    fig, ax = plt.subplots(figsize=(7.2, 3.6), layout="constrained")
    labels = list(m["breakdown"])
    left = [0.0] * len(labels)
    for phase in PHASE_NAMES:
        widths = [1e3 * m["breakdown"][label].get(phase, 0.0) for label in labels]
        ax.barh(labels, widths, left=left, label=phase)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.invert_yaxis()
    ax.set_title(
        f"Time per phase of one training run ({m['epochs'][-1]} epochs)\n{setting}",
        fontsize=10,
    )
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("learner (algorithm, format, layout)")
    ax.legend(fontsize=8, ncols=4, loc="upper center", bbox_to_anchor=(0.5, -0.18))
    ax.grid(alpha=0.3, axis="x")
    figures["time_breakdown"] = fig

    s = m["scaling"]
    fig, ax = plt.subplots(figsize=(7.2, 4.0), layout="constrained")
    ax.plot(s["dpus"], s["seconds"], "o-", label="DPUs: the four phases")
    ax.plot(s["dpus"], s["kernel"], "s--", label="DPUs: kernel only")
    ax.axhline(
        s["baseline_seconds"],
        color="k",
        linestyle=":",
        label=f"numpy CPU baseline ({s['baseline_learners']} learners)",
    )
    ax.set_xscale("log", base=2)
    ax.set_xticks(s["dpus"], [str(n) for n in s["dpus"]])
    ax.set_yscale("log")
    ax.set_title(
        f"Training time against the number of DPUs ({s['epochs']} epochs)\n"
        f"{m['env']}, {m['transitions']:,} transitions, {m['nr_tasklets']} tasklets per DPU,"
        f" emulator on {m['machine']}",
        fontsize=10,
    )
    ax.set_xlabel("DPUs (count)")
    ax.set_ylabel("time (s, log scale)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    figures["scaling"] = fig
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small, fast run (a check)")
    parser.add_argument("--out", type=Path, default=HERE.parent / "_static" / "rl")
    parser.add_argument(
        "--replot",
        action="store_true",
        help="redraw the figures from the measurements.json in --out",
    )
    args = parser.parse_args(argv)
    if args.replot:
        m = json.loads((args.out / "measurements.json").read_text())
    elif args.quick:
        m = measure("Taxi-v3", 20_000, [1, 3], [1, 4], 2, 20, nr_dpus=4, nr_tasklets=4)
    else:
        m = measure(
            "Taxi-v3",
            1_000_000,
            [1, 5, 10, 20, 30, 40, 60],
            [1, 2, 4, 8, 16, 64, 256],
            10,
            300,
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "measurements.json").write_text(json.dumps(m, indent=2))
    for name, figure in make_figures(m).items():
        figure.savefig(args.out / f"{name}.png", dpi=110)
        print("wrote", args.out / f"{name}.png")


if __name__ == "__main__":
    main()
