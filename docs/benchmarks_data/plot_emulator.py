"""Plots of the emulator benchmarks, from the JSON that benchmarks/emulator/run.py writes.

    .venv/bin/python benchmarks/emulator/run.py --json docs/benchmarks_data/emulator.json
    .venv/bin/python docs/benchmarks_data/plot_emulator.py   # writes docs/_static/benchmarks/

Options: ``--json FILE`` (default: docs/benchmarks_data/emulator.json) and ``--out DIR``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent


def make_figures(results: dict) -> dict[str, plt.Figure]:
    """The figures, by file name (without .png)."""
    figures = {}

    rows = results["bandwidth"]
    sizes = [row["bandwidth_mib"] for row in rows]
    fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
    ax.plot(sizes, [r["to_gibs"] for r in rows], "o-", label="dpu_push_xfer to DPUs")
    ax.plot(sizes, [r["from_gibs"] for r in rows], "s-", label="dpu_push_xfer from DPUs")
    ax.plot(
        sizes,
        [r["memcpy_gibs"] for r in rows],
        "k--",
        label="memcpy of the same bytes",
    )
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [f"{s:g}" for s in sizes])
    ax.set_ylim(bottom=0)
    ax.set_title("(a) Transfer bandwidth, 64 DPUs")
    ax.set_xlabel("bytes per DPU (MiB)")
    ax.set_ylabel("bandwidth (GiB/s)")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    figures["bandwidth"] = fig

    rows = results["latency"]
    fig, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
    for tasklets, marker in ((1, "o-"), (16, "s-")):
        mine = [r for r in rows if int(r["tasklets"]) == tasklets]
        ax.plot(
            [r["latency_dpus"] for r in mine],
            [r["median_ms"] for r in mine],
            marker,
            label=f"{tasklets} tasklet{'s' if tasklets > 1 else ''} per DPU",
        )
    ax.plot(
        [64],
        [5],
        "rv",
        markersize=9,
        linestyle="none",
        label="target for 64 DPUs: at most 5 ms",
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title("(b) Synchronous launch of an empty program")
    ax.set_xlabel("DPUs launched (count, log scale)")
    ax.set_ylabel("median latency (ms, log scale)")
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3, which="both")
    figures["launch_latency"] = fig
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=HERE / "emulator.json")
    parser.add_argument("--out", type=Path, default=HERE.parent / "_static" / "benchmarks")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, figure in make_figures(json.loads(args.json.read_text())).items():
        figure.savefig(args.out / f"{name}.png", dpi=110)
        print(args.out / f"{name}.png")


if __name__ == "__main__":
    main()
