"""Sample efficiency of the mapping search on the large spaces of real DNN layers: for each
layer and agent, the best modelled time after 50, 100, 200, 500 and 1,000 evaluations
(mean and spread over seeds), the evaluations to come within 5% of the best that any run
found, and the speedup over a hand-made PrIM-GEMV-like mapping.

    .venv/bin/python benchmarks/mapping_scale.py [--layers bert-ffn1 ...] [--agents marl ppo]
        [--seeds 3] [--budget 1000] [--workers 2] [--markdown] [--plot FILE] [--json FILE]
    .venv/bin/python benchmarks/mapping_scale.py --from-json A.json B.json --markdown
        [--plot FILE]   # the table and the figure of runs done apart (one per layer set)

All agents of a layer share one environment (its cache of emulated mappings), so a mapping
is emulated once however many runs propose it; each run still counts its own distinct
evaluations. Where a seed never comes within 5%, its count is the budget and the mean is
marked ">=" (a lower bound).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from rl.mapping import LAYERS, MappingEnvironment, search, workload

AGENTS = ("marl", "ppo", "random", "ga", "tpe")
CHECKPOINTS = (50, 100, 200, 500, 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", nargs="*", default=list(LAYERS), choices=list(LAYERS))
    parser.add_argument("--agents", nargs="*", default=list(AGENTS))
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--plot", type=Path, help="the curves of best time against evaluations")
    parser.add_argument("--json", type=Path, help="every run's history and the summary")
    parser.add_argument("--from-json", type=Path, nargs="*",
                        help="summarise the runs these --json files hold instead of running")
    args = parser.parse_args()
    results: dict[str, dict] = {}
    for saved in args.from_json or []:
        results.update(json.loads(saved.read_text())["results"])
    if args.from_json:
        args.layers = []
        args.budget = max(len(run["history"]) for layer in results.values()
                          for runs in layer["runs"].values() for run in runs)
        args.seeds = max(len(runs) for layer in results.values() for runs in layer["runs"].values())
    for name in args.layers:
        chosen = workload(name)
        runs: dict[str, list] = {}
        started = time.perf_counter()
        with MappingEnvironment(chosen, workers=args.workers) as env:
            hand = env.evaluate(chosen.default_mapping())
            for agent in args.agents:
                runs[agent] = []
                for seed in range(args.seeds):
                    t = time.perf_counter()
                    r = search(env, agent, budget=args.budget, seed=seed)
                    runs[agent].append({"seed": seed, "history": r.history,
                                        "best": r.best.seconds if r.best.valid else None,
                                        "best_mapping": r.best.mapping, "refused": r.refused,
                                        "proposals": r.proposals, "clusters": r.clusters,
                                        "seconds": time.perf_counter() - t})
                    if args.json:  # after every run, so that a stopped run keeps its part
                        args.json.write_text(json.dumps({"results": {**results, name: {
                            "description": chosen.description, "runs": runs, "partial": True}}}))
                    print(f"{name} {agent} seed {seed}: best {r.best.seconds * 1e3:.4f} ms, "
                          f"{r.evaluations} evaluations, {r.refused} refused, "
                          f"{time.perf_counter() - t:.1f} s", flush=True)
            emulated = env.runs
        elapsed = time.perf_counter() - started
        best = min(min(run["history"]) for agent_runs in runs.values() for run in agent_runs)
        results[name] = {"description": chosen.description, "space_size": chosen.space.size,
                         "hand_seconds": hand.seconds, "hand_mapping": hand.mapping,
                         "best_seconds": best, "runs": runs, "wall_seconds": elapsed,
                         "emulated": emulated}
        print(f"{name}: {elapsed:.0f} s, {emulated} mappings emulated "
              f"({elapsed / max(1, emulated) * 1e3:.1f} ms each, agents' time included)")
    summary = summarise(results, args.budget)
    if args.json:
        args.json.write_text(json.dumps({"results": results, "summary": summary}, indent=1))
    if args.markdown:
        print(markdown(summary, args.budget, args.seeds))
    if args.plot:
        plot(results, args.plot)


def summarise(results: dict, budget: int) -> list[dict]:
    rows = []
    for name, layer in results.items():
        for agent, runs in layer["runs"].items():
            row = {"layer": name, "agent": agent}
            for c in (c for c in CHECKPOINTS if c <= budget):
                at = [run["history"][min(c, len(run["history"])) - 1] * 1e3 for run in runs]
                row[c] = (float(np.mean(at)), float(np.min(at)), float(np.max(at)))
            reached, bound = [], False
            for run in runs:
                hits = [i for i, s in enumerate(run["history"], 1)
                        if s <= layer["best_seconds"] * 1.05]
                reached.append(hits[0] if hits else len(run["history"]))
                bound |= not hits
            row["to5"] = (float(np.mean(reached)), bound)
            finals = [min(run["history"]) for run in runs]
            row["speedup"] = float(np.mean([layer["hand_seconds"] / f for f in finals]))
            rows.append(row)
    return rows


def markdown(rows: list[dict], budget: int, seeds: int) -> str:
    checkpoints = [c for c in CHECKPOINTS if c <= budget]
    lines = ["| layer | agent | " + " | ".join(f"best ms after {c}" for c in checkpoints)
             + " | evaluations to 5% | speedup over hand-made |",
             "|---|---|" + "---|" * (len(checkpoints) + 2)]
    for row in rows:
        cells = [f"{row[c][0]:.3f} ({row[c][1]:.3f}-{row[c][2]:.3f})" for c in checkpoints]
        mean, bound = row["to5"]
        lines.append(f"| {row['layer']} | {row['agent']} | " + " | ".join(cells)
                     + f" | {'>=' if bound else ''}{mean:.0f} | {row['speedup']:.2f}x |")
    lines.append(f"\n(mean over {seeds} seeds, min-max in brackets; budget {budget})")
    return "\n".join(lines)


def plot(results: dict, path: Path) -> None:
    import matplotlib.pyplot as plt

    columns = min(4, len(results))
    rows = -(-len(results) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.4 * rows), squeeze=False)
    for ax in axes.flat[len(results):]:
        ax.set_visible(False)
    for ax, (name, layer) in zip(axes.flat, results.items(), strict=False):
        for agent, runs in layer["runs"].items():
            length = max(len(r["history"]) for r in runs)
            padded = np.array([r["history"] + [r["history"][-1]] * (length - len(r["history"]))
                               for r in runs]) / layer["best_seconds"]
            ax.plot(np.arange(1, length + 1), np.median(padded, axis=0), label=agent)
        ax.axhline(1.05, color="grey", linestyle="--", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.97)
        ax.set_xlabel("evaluations")
        ax.set_title(name, fontsize="medium")
    for row in axes:
        row[0].set_ylabel("best / best of all runs (median)")
    axes.flat[len(results) - 1].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
