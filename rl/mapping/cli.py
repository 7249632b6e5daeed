"""``python -m rl map WORKLOAD``: search the fastest mapping of a built-in workload."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .agents import AGENTS, search
from .environment import PENALTY_SECONDS, MappingEnvironment
from .layers import LAYERS
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
    p.add_argument("workload", choices=[*BUILTIN, *LAYERS],
                   help="small spaces: mlp, ffn: int8 GEMV layers of a small MLP (1,024 x "
                        "1,024) and a transformer's feed-forward block (4,096 x 1,024); gemm: "
                        "int32, 16 inputs; va, red: vector addition and reduction of 4M int32. "
                        "Large spaces (10^6 to 10^9 mappings) of real layers: "
                        + ", ".join(LAYERS))
    p.add_argument("--rows", type=int, help="layer outputs (mlp, ffn, gemm)")
    p.add_argument("--cols", type=int, help="layer inputs (mlp, ffn, gemm)")
    p.add_argument("--batch", type=int, help="input vectors, up to 16 (mlp, ffn, gemm)")
    p.add_argument("--dtype", choices=("int8", "int32"), help="values (mlp, ffn, gemm)")
    p.add_argument("--elements", type=int, help="values (va, red)")
    p.add_argument("--agent", choices=AGENTS, default="marl",
                   help="marl: one PPO agent per cluster of correlated parameters; ppo: one "
                        "PPO agent; random; ga: a genetic algorithm; tpe: Optuna's TPE; "
                        "marl-bandit: a bandit per cluster (small spaces); single, "
                        "exhaustive (small spaces)")
    p.add_argument("--workers", type=int, default=1,
                   help="processes that emulate mappings (the result does not depend on it)")
    p.add_argument("--budget", type=int, default=None,
                   help="evaluations (distinct mappings emulated); default: the whole "
                        "space up to 100,000 mappings, else 1,000")
    p.add_argument("--seed", type=int, default=0, help="the agent's seed")
    p.add_argument("--json", type=Path, help="write best_seconds, best_mapping, evaluations ...")
    p.add_argument("--cache", type=Path,
                   help="a JSON file that keeps evaluations between runs")
    p.add_argument("--plot", type=Path, help="draw the best latency against evaluations (PNG)")
    p.set_defaults(func=run)


def _shape(args: argparse.Namespace) -> dict[str, object]:
    layer = {"rows": args.rows, "cols": args.cols, "batch": args.batch, "dtype": args.dtype}
    stream = {"elements": args.elements}
    if args.workload in LAYERS:
        given, other = {}, {**layer, **stream}
    elif args.workload in ("mlp", "ffn", "gemm"):
        given, other = layer, stream
    else:
        given, other = stream, layer
    misplaced = [f"--{k}" for k, v in other.items() if v is not None]
    if misplaced:
        raise ValueError(f"{', '.join(misplaced)} does not apply to workload {args.workload}")
    return given


def run(args: argparse.Namespace) -> int:
    """Runs ``python -m rl map`` (see :func:`add_parser`). Returns 1 when no valid mapping
    was found."""
    if args.budget is not None and args.budget < 1:
        raise ValueError(f"--budget must be at least 1, not {args.budget}")
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    # Before the search, not after it: a missing folder must not cost the whole run.
    for option, path in (("--json", args.json), ("--plot", args.plot)):
        if path is not None and not path.resolve().parent.is_dir():
            raise ValueError(f"{option} {path}: the folder {path.resolve().parent} does not "
                             "exist")
    chosen = workload(args.workload, **_shape(args))
    with MappingEnvironment(chosen, cache=args.cache, workers=args.workers) as env:
        print(f"{chosen.description}: {env.space.size:,} mappings "
              f"({', '.join(env.space.names)})")
        budget = args.budget
        if budget is None:
            budget = env.space.size if env.space.size <= 100_000 else 1000
        result = search(env, args.agent, budget=budget, seed=args.seed, progress=True)
        default = env.evaluate(chosen.default_mapping())
        best = result.best
    refused = f", {result.refused} more refused by the static rules" if result.refused else ""
    if not best.valid:
        speedup = None
        print(f"no valid mapping found ({args.agent}, {result.evaluations} evaluations"
              f"{refused}): every one tried is invalid, e.g. {best.reason}. Try a larger "
              "--budget.")
    else:
        speedup = default.seconds / best.seconds if default.valid else None
        print(f"best ({args.agent}, {result.evaluations} evaluations{refused}): "
              f"{best.seconds * 1e3:.4f} ms on hardware, "
              + ", ".join(f"{k}={v}" for k, v in best.mapping.items()))
        print("  " + ", ".join(f"{k} {v * 1e3:.4f} ms" for k, v in best.phases.items()))
    if not default.valid:
        print(f"default mapping: invalid ({default.reason})")
    elif speedup is None:
        print(f"default mapping: {default.seconds * 1e3:.4f} ms")
    elif speedup >= 1:
        print(f"default mapping: {default.seconds * 1e3:.4f} ms; the best is "
              f"{speedup:.2f}x faster")
    else:
        print(f"default mapping: {default.seconds * 1e3:.4f} ms, faster than anything the "
              f"search found ({1 / speedup:.2f}x slower); use the default, or a larger --budget")
    if result.clusters:
        print("agents' parameter clusters: " + "; ".join(", ".join(c) for c in result.clusters))
    if args.json:
        args.json.write_text(json.dumps({
            "workload": args.workload, "agent": args.agent, "seed": args.seed,
            "space_size": env.space.size, "valid": best.valid,
            "best_seconds": best.seconds if best.valid else None,
            "best_mapping": best.mapping if best.valid else None,
            "best_phases": best.phases if best.valid else None,
            "invalid_reason": None if best.valid else best.reason,
            "evaluations": result.evaluations, "refused": result.refused,
            # null until the search had found a valid mapping
            "history_seconds": [s if s < PENALTY_SECONDS else None for s in result.history],
            "default_mapping": default.mapping,
            "default_seconds": default.seconds if default.valid else None,
            "speedup_over_default": speedup,
            "beats_default": None if speedup is None else speedup > 1,
            "clusters": result.clusters,
        }, indent=2))
    if args.plot:
        from .plot import plot_histories

        plot_histories({args.agent: [result.history]}, title=chosen.description).figure.savefig(
            args.plot, dpi=110
        )
    return 0 if best.valid else 1
