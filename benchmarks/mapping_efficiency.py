"""Sample efficiency of the mapping search: evaluations each agent needs to come within 5%
of the exhaustive optimum, mean over seeds, per built-in workload; and the best mapping
against the one a programmer would pick by default.

    .venv/bin/python benchmarks/mapping_efficiency.py [--seeds 10] [--markdown]
        [--plot-dir docs/_static/mapping] [--cache-dir DIR]

The exhaustive search scores every mapping once (each workload's space, a few hundred to
a few thousand mappings); the agents then search the same cached environment, so their
runs cost no emulation and count only their own distinct evaluations.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from rl.mapping import BUILTIN, MappingEnvironment, search, workload
from rl.mapping.plot import plot_histories

AGENTS = ("marl-bandit", "single", "random")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--workloads", nargs="*", default=list(BUILTIN))
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--plot-dir", type=Path, help="write one plot per workload here")
    parser.add_argument("--cache-dir", type=Path, help="keep the evaluations here")
    args = parser.parse_args()
    rows = []
    for name in args.workloads:
        chosen = workload(name)
        cache = args.cache_dir / f"{name}.json" if args.cache_dir else None
        if args.cache_dir:
            args.cache_dir.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        with MappingEnvironment(chosen, cache=cache) as env:
            optimum = search(env, "exhaustive").best
            default = env.evaluate(chosen.default_mapping())
            exhaustive_s = time.perf_counter() - started
            means, histories = {}, {}
            for agent in AGENTS:
                runs = [search(env, agent, seed=seed, stop_at=optimum.seconds * 1.05)
                        for seed in range(args.seeds)]
                means[agent] = float(np.mean([r.evaluations for r in runs]))
                histories[agent] = [search(env, agent, seed=seed, budget=min(env.space.size,
                                    400)).history for seed in range(args.seeds)]
        row = {"workload": name, "mappings": chosen.space.size, "optimum_ms": optimum.seconds * 1e3,
               "best": optimum.mapping, "default_ms": default.seconds * 1e3,
               "speedup": default.seconds / optimum.seconds, **means,
               "exhaustive_s": exhaustive_s}
        rows.append(row)
        print(f"{name}: {chosen.description}; {chosen.space.size} mappings, exhaustive "
              f"{exhaustive_s:.0f} s; optimum {optimum.seconds * 1e3:.4f} ms "
              f"({', '.join(f'{k}={v}' for k, v in optimum.mapping.items())}); default "
              f"{default.seconds * 1e3:.4f} ms ({row['speedup']:.2f}x); evaluations to 5%: "
              + ", ".join(f"{a} {means[a]:.1f}" for a in AGENTS))
        if args.plot_dir:
            args.plot_dir.mkdir(parents=True, exist_ok=True)
            ax = plot_histories(histories, optimum.seconds, title=chosen.description)
            ax.figure.savefig(args.plot_dir / f"{name}.png", dpi=110)
    if args.markdown:
        print(f"\n| workload | mappings | optimum ms | default ms | speedup | "
              f"{' | '.join(AGENTS)} (evaluations to 5%, mean of {args.seeds}) |")
        print("|---|---|---|---|---|" + "---|" * len(AGENTS))
        for r in rows:
            print(f"| {r['workload']} | {r['mappings']} | {r['optimum_ms']:.4f} | "
                  f"{r['default_ms']:.4f} | {r['speedup']:.2f}x | "
                  + " | ".join(f"{r[a]:.1f}" for a in AGENTS) + " |")


if __name__ == "__main__":
    main()
