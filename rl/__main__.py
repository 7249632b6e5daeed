"""Command line: ``python -m rl {demo,collect,train,evaluate,quality}``.

* ``demo``: collect one million random-policy transitions of FrozenLake, train
  Q-learning on the DPUs (emulated ones when there is no UPMEM hardware), evaluate the
  greedy policy against the optimal one, and print the four-phase time breakdown.
* ``collect ENV -o FILE``: collect a dataset and save it (``.npz``, or SwiftRL's text
  format with ``--text``).
* ``train DATASET -o TABLE``: train on the DPUs, print the breakdown, save the combined
  table (``.npz``); ``--evaluate`` also rates its policy.
* ``evaluate TABLE``: rate a saved table's greedy policy against the optimal one.
* ``quality``: the project's quality check: FrozenLake 4x4, Taxi and CliffWalking, one
  million random-policy transitions each, FP32 and INT32 with the default settings.

Every command takes ``-h``. Errors in the input (an unknown environment, a dataset that
does not fit its table ...) print one line naming the problem and exit with status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from . import datasets, evaluation
from .combine import COMBINES
from .envs import canonical_env_id, known_env_ids
from .layouts import LAYOUTS
from .reference import ALGORITHMS, FORMATS
from .trainer import DEFAULTS, TABLE_PLACEMENTS, Trainer, TrainResult

_TABLE_FORMAT = "rl-table-1"


def _trainer_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("training (defaults: rl.trainer.DEFAULTS)")
    d = DEFAULTS
    g.add_argument("--algorithm", choices=ALGORITHMS, default=d["algorithm"])
    g.add_argument("--fmt", choices=FORMATS, default=d["fmt"], help="number format")
    g.add_argument("--layout", choices=LAYOUTS, default=d["layout"])
    g.add_argument("--dpus", type=int, default=d["nr_dpus"], help="number of DPUs")
    g.add_argument("--tasklets", type=int, default=d["nr_tasklets"],
                   help="tasklets (learners) per DPU")
    g.add_argument("--epochs", type=int, default=d["epochs"])
    g.add_argument("--alpha", type=float, default=d["alpha"], help="learning rate")
    g.add_argument("--gamma", type=float, default=d["gamma"], help="discount")
    g.add_argument("--epsilon", type=float, default=d["epsilon"],
                   help="SARSA's exploration probability")
    g.add_argument("--sync-every", type=int, default=d["sync_every"],
                   help="combine and broadcast every K epochs (0: only at the end)")
    g.add_argument("--combine", choices=COMBINES, default=d["combine"])
    g.add_argument("--seed", type=int, default=d["seed"])
    g.add_argument("--chunk", type=int, default=d["chunk"], help="stride chunk (transitions)")
    g.add_argument("--tables", choices=TABLE_PLACEMENTS, default="auto",
                   help="where the Q tables live on the DPU")
    g.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _trainer(args: argparse.Namespace, **override) -> Trainer:
    settings = dict(
        algorithm=args.algorithm, layout=args.layout, fmt=args.fmt, nr_dpus=args.dpus,
        nr_tasklets=args.tasklets, epochs=args.epochs, alpha=args.alpha, gamma=args.gamma,
        epsilon=args.epsilon, sync_every=args.sync_every, combine=args.combine,
        seed=args.seed, chunk=args.chunk, tables=args.tables,
        progress=not args.no_progress and sys.stderr.isatty(),
    )
    settings.update(override)
    return Trainer(**settings)


def _backend_words() -> str:
    try:
        from pyupmem.backend import default_backend

        return "emulated DPUs" if default_backend().kind == "emulator" else "DPUs"
    except Exception:  # noqa: BLE001 - only a label
        return "DPUs"


def _describe_run(result: TrainResult, n: int) -> str:
    c = result.config
    return (
        f"trained {c.algorithm} ({c.fmt}, {c.layout} layout) on {c.n_dpus} {_backend_words()} "
        f"x {c.n_tasklets} tasklets = {c.n_learners} learners, {c.epochs} epochs over "
        f"{n:,} transitions, sync every {c.sync_every or 'run'}, {c.combine} combine, "
        f"tables in {result.tables_in.upper()}\n"
        f"  {result.seconds:.2f} s ({result.updates_per_second / 1e6:.1f} M updates/s); "
        f"setup (build, allocate, load) {result.setup_seconds:.2f} s"
    )


def _describe_quality(env_id: str, cmp: evaluation.Comparison, episodes: int) -> str:
    lr, op = cmp.learned, cmp.optimal
    return (
        f"policy quality on {env_id}, {episodes} seeded episodes:\n"
        f"  learned greedy policy: success {lr.success_rate:6.1%}  mean return "
        f"{lr.mean_return:8.2f}\n"
        f"  optimal policy (value iteration): success {op.success_rate:6.1%}  mean return "
        f"{op.mean_return:8.2f}\n"
        f"  -> {cmp.success_fraction:.1%} of the optimal success rate, return gap "
        f"{cmp.return_gap:.2f}, same action as optimal in {cmp.policy_agreement:.0%} of "
        f"the states"
    )


def _load_dataset(path: str, env: str | None) -> datasets.Dataset:
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"no dataset file {path!r}; write one with 'python -m rl collect'")
    if p.suffix == ".npz":
        return datasets.load(p)
    return datasets.load_swiftrl_text(p, env_id=env)


def save_table(path: str | Path, result: TrainResult, env_id: str | None) -> Path:
    """Save a training result's combined table (``.npz``) for ``python -m rl evaluate``."""
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")
    np.savez(path, format=np.array(_TABLE_FORMAT), table=result.table,
             env_id=np.array(env_id or ""), fmt=np.array(result.config.fmt))
    return path


def load_table(path: str | Path) -> tuple[np.ndarray, str | None]:
    """A table saved by :func:`save_table` and its environment (None when unknown)."""
    with np.load(path, allow_pickle=False) as z:
        if "format" not in z or str(z["format"]) != _TABLE_FORMAT:
            raise ValueError(f"{path} is not a table saved by 'python -m rl train'")
        return z["table"], (str(z["env_id"]) or None)


# ---------------------------------------------------------------------- commands


def _cmd_collect(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    ds = datasets.collect(args.env, args.transitions, seed=args.seed)
    took = time.perf_counter() - start
    path = ds.save_swiftrl_text(args.output) if args.text else ds.save(args.output)
    print(f"collected {len(ds):,} transitions of {ds.env_id} in {took:.2f} s -> {path}")
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    ds = _load_dataset(args.dataset, args.env)
    env_id = args.env and canonical_env_id(args.env) or ds.env_id
    result = _trainer(args).train(ds)
    print(_describe_run(result, len(ds)))
    print(result.breakdown())
    if args.output:
        print(f"table -> {save_table(args.output, result, env_id)}")
    if args.evaluate:
        if env_id is None:
            raise ValueError("--evaluate needs to know the environment; pass --env")
        cmp = evaluation.compare_to_optimal(env_id, result.table, args.episodes, args.seed)
        print(_describe_quality(env_id, cmp, args.episodes))
    return 0


def _cmd_evaluate(args: argparse.Namespace) -> int:
    table, env_id = load_table(args.table)
    env_id = args.env or env_id
    if env_id is None:
        raise ValueError(f"{args.table} does not record its environment; pass --env")
    cmp = evaluation.compare_to_optimal(env_id, table, args.episodes, args.seed, args.gamma)
    print(_describe_quality(canonical_env_id(env_id), cmp, args.episodes))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    env_id = canonical_env_id(args.env)
    print(f"rl demo: tabular {args.algorithm} on {env_id} from offline random-policy data\n")
    start = time.perf_counter()
    ds = datasets.collect(env_id, args.transitions, seed=args.seed)
    print(f"collected {len(ds):,} transitions in {time.perf_counter() - start:.2f} s")
    result = _trainer(args).train(ds)
    print(_describe_run(result, len(ds)))
    print()
    print(result.breakdown())
    print()
    cmp = evaluation.compare_to_optimal(env_id, result.table, args.episodes, args.seed,
                                        gamma=0.99)
    print(_describe_quality(env_id, cmp, args.episodes))
    return 0


#: The issue's quality targets, checked by ``python -m rl quality``.
QUALITY_ENVS: tuple[str, ...] = ("FrozenLake-v1", "Taxi-v3", "CliffWalking-v0")


def _cmd_quality(args: argparse.Namespace) -> int:
    rows = []
    ok = True
    for env_id in QUALITY_ENVS:
        ds = datasets.collect(env_id, args.transitions, seed=args.seed)
        seen = np.zeros(ds.n_states, dtype=bool)
        seen[ds.state] = True
        policies = {}
        for fmt in FORMATS:
            result = _trainer(args, fmt=fmt).train(ds)
            cmp = evaluation.compare_to_optimal(env_id, result.table, args.episodes, 0)
            policies[fmt] = evaluation.greedy_policy(result.q_values())
            if env_id.startswith("FrozenLake"):
                target, passed = ">= 95% of optimal success", cmp.success_fraction >= 0.95
                got = f"{cmp.success_fraction:.1%} ({cmp.learned.success_rate:.1%} vs " \
                      f"{cmp.optimal.success_rate:.1%})"
            elif env_id.startswith("Taxi"):
                target, passed = "return >= optimal - 1", cmp.return_gap <= 1.0
                got = f"{cmp.learned.mean_return:.2f} vs {cmp.optimal.mean_return:.2f}"
            else:
                target, passed = "return == optimal", cmp.return_gap == 0.0
                got = f"{cmp.learned.mean_return:.2f} vs {cmp.optimal.mean_return:.2f}"
            ok &= passed
            rows.append((env_id, fmt, got, target, passed, result.seconds))
        agree = float(np.mean(policies["fp32"][seen] == policies["int32"][seen]))
        passed = agree >= 0.99
        ok &= passed
        rows.append((env_id, "int32 vs fp32", f"{agree:.1%} of {int(seen.sum())} seen states",
                     "greedy policies agree >= 99%", passed, 0.0))
    print(f"{'environment':<16} {'what':<14} {'measured':<34} {'target':<30} ok")
    for env_id, what, got, target, passed, _ in rows:
        print(f"{env_id:<16} {what:<14} {got:<34} {target:<30} {'yes' if passed else 'NO'}")
    print(f"({args.transitions:,} uniform-random transitions per environment, "
          f"{args.episodes} evaluation episodes, both formats, settings: {_trainer(args)!r})")
    return 0 if ok else 1


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m rl`` argument parser."""
    parser = argparse.ArgumentParser(
        prog="python -m rl",
        description="Tabular Q-learning and SARSA from offline data, trained on UPMEM DPUs "
                    "(or pyupmem's emulator).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    envs = ", ".join(known_env_ids())

    p = sub.add_parser("demo", help="collect, train on DPUs, evaluate, print the breakdown")
    p.add_argument("--env", default="FrozenLake-v1", help=f"environment ({envs})")
    p.add_argument("--transitions", "-n", type=int, default=1_000_000)
    p.add_argument("--episodes", type=int, default=1000, help="evaluation episodes")
    _trainer_options(p)
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("collect", help="collect a dataset with a random behaviour policy")
    p.add_argument("env", help=f"environment ({envs})")
    p.add_argument("--transitions", "-n", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--output", "-o", required=True, help="file to write (.npz)")
    p.add_argument("--text", action="store_true",
                   help="write SwiftRL's text format (state action reward next_state)")
    p.set_defaults(func=_cmd_collect)

    p = sub.add_parser("train", help="train on DPUs from a dataset file")
    p.add_argument("dataset", help=".npz from 'collect', or a SwiftRL text file")
    p.add_argument("--env", help="the environment (needed for SwiftRL text and --evaluate "
                                 "when the dataset does not record it)")
    p.add_argument("--output", "-o", help="save the combined table here (.npz)")
    p.add_argument("--evaluate", action="store_true", help="rate the learned policy too")
    p.add_argument("--episodes", type=int, default=1000)
    _trainer_options(p)
    p.set_defaults(func=_cmd_train)

    p = sub.add_parser("evaluate", help="rate a saved table against the optimal policy")
    p.add_argument("table", help="a table saved by 'train -o'")
    p.add_argument("--env", help="the environment (default: the one the table records)")
    p.add_argument("--episodes", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gamma", type=float, default=0.99, help="discount of the optimal policy")
    p.set_defaults(func=_cmd_evaluate)

    p = sub.add_parser("quality", help="check the quality targets with the default settings")
    p.add_argument("--transitions", "-n", type=int, default=1_000_000)
    p.add_argument("--episodes", type=int, default=1000)
    _trainer_options(p)
    p.set_defaults(func=_cmd_quality)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, FileNotFoundError) as error:
        print(f"python -m rl {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
