"""Command line: ``python -m rl {demo,collect,train,evaluate,quality,map}``.

* ``demo``: collect one million random-policy transitions of FrozenLake, train
  Q-learning on the DPUs (emulated ones when there is no UPMEM hardware), evaluate the
  greedy policy against the optimal one, and print the four-phase time breakdown.
* ``collect ENV -o FILE``: collect a dataset and save it (``.npz``, or SwiftRL's text
  format with ``--text``).
* ``train DATASET -o TABLE``: train on the DPUs, print the breakdown, save the combined
  table (``.npz``); ``--evaluate`` also rates its policy. Under ``mpirun -n K`` it runs
  on K servers (:mod:`pyupmem.apps.distributed`): ``--dpus`` is the total over all
  processes, each drives its share, and process 0 alone prints and writes the table,
  which equals one process's with the same DPUs bit for bit.
* ``evaluate TABLE``: rate a saved table's greedy policy against the optimal one.
* ``quality``: the project's quality check: FrozenLake 4x4, Taxi and CliffWalking, one
  million random-policy transitions each, FP32 and INT32 with the default settings.
* ``map WORKLOAD``: search the fastest mapping of a DNN layer or a PrIM-style kernel on
  DPUs (:mod:`rl.mapping`).

Every command takes ``-h``. Errors in the input or the options (an unknown environment,
a dataset that does not fit its table, an option out of range ...) print one line naming
the problem (the file and its 1-based line where there is one) and exit with status 2;
options and input are checked before any training starts, so an error never costs a
run or overwrites an earlier output. Output to a closed pipe (``... | head -1``) is
dropped quietly; the table is still written. Ctrl-C stops a command with one line and
exit status 130.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import zipfile
from pathlib import Path
from typing import NoReturn

import numpy as np

from pyupmem.apps.distributed import Cluster, run_command, silence_stdout, usage_error

from . import datasets, evaluation, fixed_point, kernel
from .combine import COMBINES
from .envs import canonical_env_id, known_env_ids
from .layouts import LAYOUTS
from .mapping import cli as mapping_cli
from .reference import ALGORITHMS, FORMATS
from .trainer import DEFAULTS, TABLE_PLACEMENTS, Trainer, TrainResult

_TABLE_FORMAT = "rl-table-1"


def _trainer_options(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("training (defaults from rl.trainer.DEFAULTS)")
    d = DEFAULTS
    g.add_argument("--algorithm", choices=ALGORITHMS, default=d["algorithm"], help="the learner")
    g.add_argument("--fmt", choices=FORMATS, default=d["fmt"], help="number format")
    g.add_argument("--layout", choices=LAYOUTS, default=d["layout"],
                   help="how transitions are spread over DPUs and tasklets")
    g.add_argument("--dpus", type=int, default=d["nr_dpus"], help="number of DPUs")
    g.add_argument("--tasklets", type=int, default=d["nr_tasklets"],
                   help="tasklets (learners) per DPU")
    g.add_argument("--epochs", type=int, default=d["epochs"], help="passes over the data")
    g.add_argument("--alpha", type=float, default=d["alpha"], help="learning rate")
    g.add_argument("--gamma", type=float, default=d["gamma"], help="discount")
    g.add_argument("--epsilon", type=float, default=d["epsilon"],
                   help="SARSA's exploration probability")
    g.add_argument("--sync-every", type=int, default=d["sync_every"],
                   help="combine and broadcast every K epochs (0: only at the end)")
    g.add_argument("--segments", type=int, default=d["segments"],
                   help="combines per epoch, with --sync-every 1 (0: 2 when the learners' "
                        "shares are small, else 1)")
    g.add_argument("--combine", choices=COMBINES, default=d["combine"],
                   help="how the learners' tables are combined")
    g.add_argument("--seed", type=int, default=d["seed"],
                   help="seed of the random layout and of SARSA's generators")
    g.add_argument("--chunk", type=int, default=d["chunk"], help="stride chunk (transitions)")
    g.add_argument("--tables", choices=TABLE_PLACEMENTS, default="auto",
                   help="where the Q tables live on the DPU")
    g.add_argument("--no-progress", action="store_true", help="hide the progress bar")


_U32 = 2**32 - 1


def _out(*values: object) -> None:
    """``print`` that goes quiet once stdout is a closed pipe (the work goes on)."""
    try:
        print(*values, flush=True)
    except BrokenPipeError:
        silence_stdout()


def _check_range(option: str, value: float, low: float, high: float,
                 what: str = "") -> None:
    if not low <= value <= high:
        raise ValueError(f"{option} {fixed_point._num(value)} is out of range: it must lie "
                         f"in {fixed_point._num(low)}..{fixed_point._num(high)}{what}")


def _check_trainer_options(args: argparse.Namespace) -> None:
    """Every training option in range, in the command line's terms."""
    _check_range("--dpus", args.dpus, 1, 2560)
    _check_range("--tasklets", args.tasklets, 1, kernel.MAX_TASKLETS)
    _check_range("--epochs", args.epochs, 1, _U32)
    _check_range("--sync-every", args.sync_every, 0, _U32, " (0: combine only at the end)")
    _check_range("--segments", args.segments, 0, _U32, " (0: chosen from the data)")
    if args.segments > 1 and args.sync_every != 1:
        raise ValueError(f"--segments {args.segments} (combines per epoch) needs --sync-every 1")
    _check_range("--seed", args.seed, 0, _U32)
    _check_range("--chunk", args.chunk, 1, kernel.MAX_CHUNK)
    for name in ("alpha", "gamma", "epsilon"):
        _check_range(f"--{name}", getattr(args, name), 0.0, 1.0)
    if args.fmt == "int32":
        for name in ("alpha", "gamma"):
            if getattr(args, name) >= 1.0:
                raise ValueError(
                    f"--{name} {getattr(args, name)} is 1, which --fmt int32 cannot hold "
                    f"(its coefficients lie in [0, 1)); use e.g. --{name} 0.99, or --fmt fp32"
                )


def _check_output(option: str, path: str, suffix: str = ".npz") -> Path:
    """The path an output option will write, checked for writing before any work."""
    p = Path(path)
    if suffix and p.suffix != suffix:
        p = p.with_name(p.name + suffix)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise ValueError(f"{option} {path}: is a directory; give a file name")
    if not parent.is_dir():
        raise ValueError(f"{option} {path}: the directory {parent} does not exist")
    if (p.exists() and not os.access(p, os.W_OK)) or not os.access(parent, os.W_OK):
        raise ValueError(f"{option} {path}: cannot write {p} (permission denied)")
    return p


def _trainer(args: argparse.Namespace, **override) -> Trainer:
    settings = dict(
        algorithm=args.algorithm, layout=args.layout, fmt=args.fmt, nr_dpus=args.dpus,
        nr_tasklets=args.tasklets, epochs=args.epochs, alpha=args.alpha, gamma=args.gamma,
        epsilon=args.epsilon, sync_every=args.sync_every, combine=args.combine,
        seed=args.seed, chunk=args.chunk, segments=args.segments, tables=args.tables,
        progress=not args.no_progress and sys.stderr.isatty(),
    )
    settings.update(override)
    return Trainer(**settings)


def _backend_words() -> str:
    try:
        from pyupmem.driver.backend import default_backend

        return "emulated DPUs" if default_backend().kind == "emulator" else "DPUs"
    except Exception:  # noqa: BLE001 - only a label
        return "DPUs"


def _describe_run(result: TrainResult, n: int) -> str:
    c = result.config
    return (
        f"trained {c.algorithm} ({c.fmt}, {c.layout} layout) on {c.n_dpus} {_backend_words()} "
        f"x {c.n_tasklets} tasklets = {c.n_learners} learners, {c.epochs} epochs over "
        f"{n:,} transitions, sync every {c.sync_every or 'run'}"
        f"{f' ({c.segments} combines per epoch)' if c.segments > 1 else ''}, {c.combine} combine, "
        f"tables in {result.tables_in.upper()}\n"
        f"  {result.seconds:.2f} s ({result.updates_per_second / 1e6:.1f} M updates/s); "
        f"setup (build, allocate, load) {result.setup_seconds:.2f} s"
    )


def _describe_quality(env_id: str, cmp: evaluation.Comparison, episodes: int,
                      gamma: float) -> str:
    lr, op = cmp.learned, cmp.optimal
    return (
        f"policy quality on {env_id}, {episodes} seeded episodes:\n"
        f"  learned greedy policy: success {lr.success_rate:6.1%}  mean return "
        f"{lr.mean_return:8.2f}\n"
        f"  optimal policy (value iteration, gamma {gamma:g}): success "
        f"{op.success_rate:6.1%}  mean return {op.mean_return:8.2f}\n"
        f"  -> {cmp.success_fraction:.1%} of the optimal success rate, return gap "
        f"{cmp.return_gap:.2f}, same action as optimal in {cmp.policy_agreement:.0%} of "
        f"the states"
    )


_ZIP_MAGIC = b"PK\x03\x04"


def _load_dataset(args: argparse.Namespace) -> datasets.Dataset:
    """The dataset of ``train``, checked (against ``--env`` too) before any training."""
    path = args.dataset
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: no such dataset file; write one with 'python -m rl collect'")
    with open(p, "rb") as f:
        head = f.read(4)
    env = canonical_env_id(args.env) if args.env else None
    if head == _ZIP_MAGIC or p.suffix == ".npz":
        if args.terminals is not None:
            raise ValueError(f"--terminals is for text datasets; {path} is an .npz dataset, "
                             f"which has its terminal flags")
        ds = datasets.load(p)  # its errors name the file, the problem and the fix
        ds.validate(path)
        if env is not None:
            if ds.env_id is not None and ds.env_id != env:
                raise ValueError(f"{path} holds {ds.env_id} transitions, not {env} (--env)")
            datasets.check_against_model(ds, env, not args.no_reward_check, path)
            ds = datasets.Dataset(env, ds.n_states, ds.n_actions, ds.reward_scale, ds.state,
                                  ds.action, ds.reward, ds.next_state, ds.terminal)
    else:
        terminals = None
        if args.terminals is not None:
            spec = args.terminals.strip().lower()
            try:
                terminals = [] if spec == "none" else [int(x) for x in spec.split(",") if x]
            except ValueError:
                raise ValueError(f"--terminals {args.terminals}: give 'none' or states "
                                 f"separated by commas, e.g. --terminals 5,7,11,12,15") from None
        elif env is None:
            raise ValueError(
                f"{path} is a text dataset, which has no terminal flags: pass --env ENV (its "
                f"model marks them), or say how they are marked with --terminals none (no "
                f"transition ends an episode) or --terminals S,S,... (entering these states does)"
            )
        ds = datasets.load_swiftrl_text(p, env_id=env, terminal_states=terminals,
                                        check_rewards=not args.no_reward_check)
    if len(ds) == 0:
        raise ValueError(f"{path}: the dataset has no transitions")
    return ds


def save_table(path: str | Path, result: TrainResult, env_id: str | None) -> Path:
    """Save a training result's combined table (``.npz``) for ``python -m rl evaluate``."""
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")
    np.savez(path, format=np.array(_TABLE_FORMAT), table=result.table,
             env_id=np.array(env_id or ""), fmt=np.array(result.config.fmt),
             gamma=np.float64(result.config.gamma))
    return path


def load_table(path: str | Path) -> tuple[np.ndarray, str | None]:
    """A table saved by :func:`save_table` and its environment (None when unknown)."""
    table, env_id, _ = _read_table(path)
    return table, env_id


def _read_table(path: str | Path) -> tuple[np.ndarray, str | None, float | None]:
    """Table, environment and training gamma (None when not recorded) of a saved table."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: no such table file; write one with 'python -m rl train -o'")
    with open(p, "rb") as f:
        if f.read(4) != _ZIP_MAGIC:
            raise ValueError(f"{path}: not a table saved by 'python -m rl train -o' (not an "
                             f".npz file)")
    try:
        with np.load(p, allow_pickle=False) as z:
            if "format" not in z or str(z["format"]) != _TABLE_FORMAT:
                raise ValueError(f"{path}: not a table saved by 'python -m rl train -o'")
            gamma = float(z["gamma"]) if "gamma" in z else None
            return z["table"], (str(z["env_id"]) or None), gamma
    except (zipfile.BadZipFile, EOFError, OSError, KeyError) as error:
        raise ValueError(f"{path}: not a readable table file (truncated or damaged: "
                         f"{error})") from None
    except ValueError as error:
        if "allow_pickle" not in str(error):
            raise
        raise ValueError(f"{path}: not a table saved by 'python -m rl train -o' (it holds "
                         f"pickled Python objects, which a table never does)") from None


# ---------------------------------------------------------------------- commands


def _cmd_collect(args: argparse.Namespace) -> int:
    _check_range("--transitions", args.transitions, 1, 2**31 - 1)
    _check_range("--seed", args.seed, 0, _U32)
    canonical_env_id(args.env)
    _check_output("--output", args.output, "" if args.text else ".npz")
    start = time.perf_counter()
    ds = datasets.collect(args.env, args.transitions, seed=args.seed)
    took = time.perf_counter() - start
    path = ds.save_swiftrl_text(args.output) if args.text else ds.save(args.output)
    _out(f"collected {len(ds):,} transitions of {ds.env_id} in {took:.2f} s -> {path}")
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    cluster = Cluster.world()
    return run_command(cluster, lambda: _train(args, cluster), "python -m rl train",
                       expected=(ValueError, FileNotFoundError))


def _train(args: argparse.Namespace, cluster: Cluster) -> int:
    root = cluster.is_root
    _check_trainer_options(args)
    _check_range("--episodes", args.episodes, 1, 10**9)
    if args.evaluate and args.gamma >= 1.0:
        raise ValueError(f"--evaluate compares with the optimal policy for --gamma, which "
                         f"needs --gamma below 1, not {args.gamma}")
    output = _check_output("--output", args.output) if args.output and root else None
    ds = _load_dataset(args)
    env_id = ds.env_id
    if args.evaluate and env_id is None:
        raise ValueError(f"--evaluate needs the environment, which {args.dataset} does not "
                         f"record; pass --env")
    trainer = _trainer(args, cluster=cluster if cluster.size > 1 else None)
    trainer.plan(ds)
    if args.fmt == "int32":
        ds.rewards_q16()  # rewards outside Q15.16 fail here, before training
    result = trainer.train(ds)
    if not root:
        return 0
    if output is not None:
        saved = save_table(output, result, env_id)
    _out(_describe_run(result, len(ds)))
    _out(result.breakdown())
    if output is not None:
        _out(f"table -> {saved}")
    if args.evaluate:
        cmp = evaluation.compare_to_optimal(env_id, result.table, args.episodes, args.seed,
                                            args.gamma)
        _out(_describe_quality(env_id, cmp, args.episodes, args.gamma))
    return 0


def _cmd_evaluate(args: argparse.Namespace) -> int:
    _check_range("--episodes", args.episodes, 1, 10**9)
    _check_range("--seed", args.seed, 0, _U32)
    if args.gamma is not None and not 0.0 <= args.gamma < 1.0:
        raise ValueError(f"--gamma {args.gamma} is out of range: the optimal policy needs a "
                         f"gamma in [0, 1)")
    table, env_id, gamma = _read_table(args.table)
    env_id = canonical_env_id(args.env) if args.env else env_id
    if env_id is None:
        raise ValueError(f"{args.table} does not record its environment; pass --env")
    gamma = args.gamma if args.gamma is not None else gamma if gamma is not None else 0.99
    cmp = evaluation.compare_to_optimal(env_id, table, args.episodes, args.seed, gamma)
    _out(_describe_quality(env_id, cmp, args.episodes, gamma))
    return 0


def _check_collect_and_compare(args: argparse.Namespace, what: str) -> None:
    """The options of the commands that collect data, train and compare with the optimal
    policy (demo, quality), checked before any work."""
    _check_trainer_options(args)
    _check_range("--transitions", args.transitions, 1, 2**31 - 1)
    _check_range("--episodes", args.episodes, 1, 10**9)
    if args.gamma >= 1.0:
        raise ValueError(f"{what} compares with the optimal policy for --gamma, which needs "
                         "--gamma below 1")


def _cmd_demo(args: argparse.Namespace) -> int:
    _check_collect_and_compare(args, "the demo")
    env_id = canonical_env_id(args.env)
    _out(f"rl demo: tabular {args.algorithm} on {env_id} from offline random-policy data\n")
    start = time.perf_counter()
    ds = datasets.collect(env_id, args.transitions, seed=args.seed)
    _out(f"collected {len(ds):,} transitions in {time.perf_counter() - start:.2f} s")
    result = _trainer(args).train(ds)
    _out(_describe_run(result, len(ds)))
    _out()
    _out(result.breakdown())
    _out()
    cmp = evaluation.compare_to_optimal(env_id, result.table, args.episodes, args.seed,
                                        gamma=args.gamma)
    _out(_describe_quality(env_id, cmp, args.episodes, args.gamma))
    return 0


#: The issue's quality targets, checked by ``python -m rl quality``.
QUALITY_ENVS: tuple[str, ...] = ("FrozenLake-v1", "Taxi-v3", "CliffWalking-v0")


def _cmd_quality(args: argparse.Namespace) -> int:
    _check_collect_and_compare(args, "quality")
    rows = []
    ok = True
    for env_id in QUALITY_ENVS:
        ds = datasets.collect(env_id, args.transitions, seed=args.seed)
        seen = np.zeros(ds.n_states, dtype=bool)
        seen[ds.state] = True
        policies = {}
        for fmt in FORMATS:
            result = _trainer(args, fmt=fmt).train(ds)
            cmp = evaluation.compare_to_optimal(env_id, result.table, args.episodes, 0,
                                                args.gamma)
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
    _out(f"{'environment':<16} {'what':<14} {'measured':<34} {'target':<30} ok")
    for env_id, what, got, target, passed, _ in rows:
        _out(f"{env_id:<16} {what:<14} {got:<34} {target:<30} {'yes' if passed else 'NO'}")
    _out(f"({args.transitions:,} uniform-random transitions per environment, "
          f"{args.episodes} evaluation episodes, both formats, settings: {_trainer(args)!r})")
    return 0 if ok else 1


class _ShowDefaults(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's help ends with its default, except where there is nothing to show
    (no default, or a flag's False)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or isinstance(action.default, bool):
            return action.help
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """The commands' parsers: they show the defaults; under ``mpiexec`` process 0 alone
    prints a usage error (:func:`pyupmem.apps.distributed.usage_error`)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _ShowDefaults)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        usage_error(self, message)


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m rl`` argument parser."""
    parser = _Parser(
        prog="python -m rl",
        description="Tabular Q-learning and SARSA from offline data, trained on UPMEM DPUs "
                    "(or pyupmem's emulator).",
        formatter_class=argparse.HelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=_Parser)
    envs = ", ".join(known_env_ids())

    p = sub.add_parser("demo", help="collect, train on DPUs, evaluate, print the breakdown")
    p.add_argument("--env", default="FrozenLake-v1", help=f"environment ({envs})")
    p.add_argument("--transitions", "-n", type=int, default=1_000_000,
                   help="random-policy transitions to collect")
    p.add_argument("--episodes", type=int, default=1000, help="evaluation episodes")
    _trainer_options(p)
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("collect", help="collect a dataset with a random behaviour policy")
    p.add_argument("env", help=f"environment ({envs})")
    p.add_argument("--transitions", "-n", type=int, default=1_000_000,
                   help="transitions to collect")
    p.add_argument("--seed", type=int, default=0, help="seed of the behaviour policy")
    p.add_argument("--output", "-o", required=True, help="file to write (.npz)")
    p.add_argument("--text", action="store_true",
                   help="write SwiftRL's text format (state action reward next_state)")
    p.set_defaults(func=_cmd_collect)

    p = sub.add_parser("train", help="train on DPUs from a dataset file")
    p.add_argument("dataset", help=".npz from 'collect', or a SwiftRL text file")
    p.add_argument("--env", help="the environment: marks a text dataset's terminal flags, "
                                 "checks every transition and reward against its model, "
                                 "and is needed by --evaluate when the dataset does not "
                                 "record it")
    p.add_argument("--terminals", metavar="none|S,S,...",
                   help="for a text dataset: how its terminal transitions are marked: "
                        "'none' (no transition ends an episode) or the states whose entry "
                        "ends one (default with --env: the environment's model)")
    p.add_argument("--no-reward-check", action="store_true",
                   help="accept rewards that differ from the environment's model (shaped "
                        "rewards); transitions are still checked")
    p.add_argument("--output", "-o", help="save the combined table here (.npz)")
    p.add_argument("--evaluate", action="store_true", help="rate the learned policy too")
    p.add_argument("--episodes", type=int, default=1000,
                   help="evaluation episodes (with --evaluate)")
    _trainer_options(p)
    p.set_defaults(func=_cmd_train)

    p = sub.add_parser("evaluate", help="rate a saved table against the optimal policy")
    p.add_argument("table", help="a table saved by 'train -o'")
    p.add_argument("--env", help="the environment (default: the one the table records)")
    p.add_argument("--episodes", type=int, default=1000, help="evaluation episodes")
    p.add_argument("--seed", type=int, default=0, help="seed of the evaluation episodes")
    p.add_argument("--gamma", type=float, default=None,
                   help="discount of the optimal policy (default: the training gamma the "
                        "table records, else 0.99)")
    p.set_defaults(func=_cmd_evaluate)

    p = sub.add_parser("quality", help="check the quality targets with the default settings")
    p.add_argument("--transitions", "-n", type=int, default=1_000_000,
                   help="random-policy transitions per environment")
    p.add_argument("--episodes", type=int, default=1000, help="evaluation episodes")
    _trainer_options(p)
    p.set_defaults(func=_cmd_quality)

    mapping_cli.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = int(args.func(args))
    except (ValueError, FileNotFoundError) as error:
        message = str(error).replace("\n", " ")
        if isinstance(error, datasets.RewardMismatch):
            message += "; pass --no-reward-check if the dataset's rewards are shaped"
        print(f"python -m rl {args.command}: error: {message}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        # Ctrl-C: the DPU sets were freed on the way out; one line, the shell's status.
        print(f"\npython -m rl {args.command}: interrupted", file=sys.stderr)
        status = 130
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    return status


if __name__ == "__main__":
    sys.exit(main())
