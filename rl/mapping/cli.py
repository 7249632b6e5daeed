"""``python -m rl map WORKLOAD``: search the fastest mapping of a built-in workload."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .agents import AGENTS, search
from .environment import MappingEnvironment
from .workloads import BUILTIN, workload


class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default, unless it has none (None: the option's help says what
    happens without it)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is argparse.SUPPRESS:
            return action.help or ""
        return super()._get_help_string(action)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Adds the ``map`` command to ``python -m rl``'s subcommands."""
    p = sub.add_parser(
        "map", help="search the fastest mapping of a DNN layer or PrIM-style kernel",
        description="Search the fastest way to run a workload on DPUs (DPUs, tasklets, DMA "
                    "block, split, transfers, batching), scored by the emulator's model of "
                    "the whole run on hardware.",
        formatter_class=_Formatter,
    )
    p.add_argument("workload", choices=list(BUILTIN),
                   help="mlp, ffn: int8 GEMV layers of a small MLP (1,024 x 1,024) and a "
                        "transformer's feed-forward block (4,096 x 1,024); gemm: int32, 16 "
                        "inputs; va, red: vector addition and reduction of 4M int32")
    p.add_argument("--rows", type=int, help="layer outputs (mlp, ffn, gemm)")
    p.add_argument("--cols", type=int, help="layer inputs (mlp, ffn, gemm)")
    p.add_argument("--batch", type=int, help="input vectors, up to 16 (mlp, ffn, gemm)")
    p.add_argument("--dtype", choices=("int8", "int32"), help="values (mlp, ffn, gemm)")
    p.add_argument("--elements", type=int, help="values (va, red)")
    p.add_argument("--agent", choices=AGENTS, default="marl",
                   help="the search: multi-agent RL (marl), one RL agent (single), random or "
                        "exhaustive search")
    p.add_argument("--budget", type=int, default=None,
                   help="evaluations (distinct mappings); default: the whole space")
    p.add_argument("--seed", type=int, default=0, help="the search's seed")
    p.add_argument("--json", type=Path, help="write best_seconds, best_mapping, evaluations ...")
    p.add_argument("--cache", type=Path,
                   help="a JSON file that keeps evaluations between runs")
    p.add_argument("--plot", type=Path, help="draw the best latency against evaluations (PNG)")
    p.set_defaults(func=run)


def _shape(args: argparse.Namespace) -> dict[str, object]:
    layer = {"rows": args.rows, "cols": args.cols, "batch": args.batch, "dtype": args.dtype}
    stream = {"elements": args.elements}
    given, other = (layer, stream) if args.workload in ("mlp", "ffn", "gemm") else (stream, layer)
    misplaced = [f"--{k}" for k, v in other.items() if v is not None]
    if misplaced:
        raise ValueError(f"{', '.join(misplaced)} does not apply to workload {args.workload}")
    return given


def run(args: argparse.Namespace) -> int:
    """Runs ``python -m rl map`` (see :func:`add_parser`)."""
    if args.budget is not None and args.budget < 1:
        raise ValueError(f"--budget must be at least 1, not {args.budget}")
    # Before the search, not after it: a missing folder must not cost the whole run.
    for option, path in (("--json", args.json), ("--plot", args.plot)):
        if path is not None and not path.resolve().parent.is_dir():
            raise ValueError(f"{option} {path}: the folder {path.resolve().parent} does not "
                             "exist")
    chosen = workload(args.workload, **_shape(args))
    with MappingEnvironment(chosen, cache=args.cache) as env:
        print(f"{chosen.description}: {env.space.size} mappings "
              f"({', '.join(env.space.names)})")
        result = search(env, args.agent, budget=args.budget, seed=args.seed, progress=True)
        default = env.evaluate(chosen.default_mapping())
        best = result.best
    speedup = default.seconds / best.seconds
    print(f"best ({args.agent}, {result.evaluations} evaluations): {best.seconds * 1e3:.4f} ms "
          f"on hardware, " + ", ".join(f"{k}={v}" for k, v in best.mapping.items()))
    print("  " + ", ".join(f"{k} {v * 1e3:.4f} ms" for k, v in best.phases.items()))
    print(f"default mapping (16 tasklets, the largest block that fits): "
          f"{default.seconds * 1e3:.4f} ms; the best is {speedup:.2f}x faster")
    if result.clusters:
        print("agents' parameter clusters: " + "; ".join(", ".join(c) for c in result.clusters))
    if args.json:
        args.json.write_text(json.dumps({
            "workload": args.workload, "agent": args.agent, "seed": args.seed,
            "best_seconds": best.seconds, "best_mapping": best.mapping,
            "best_phases": best.phases, "evaluations": result.evaluations,
            "history_seconds": result.history, "default_mapping": default.mapping,
            "default_seconds": default.seconds, "speedup_over_default": speedup,
            "clusters": result.clusters,
        }, indent=2))
    if args.plot:
        from .plot import plot_histories

        plot_histories({args.agent: [result.history]}, title=chosen.description).figure.savefig(
            args.plot, dpi=110
        )
    return 0
