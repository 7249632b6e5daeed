"""Command line: ``python -m pimopt {train,generate,evaluate,demo}``.

* ``train TRAIN --test TEST``: train on the DPUs (emulated ones without UPMEM hardware)
  from LIBSVM files; prints the test accuracy and, with ``--json OUT``, writes it as
  ``"test_accuracy"`` with the loss, accuracy and AUC per epoch, the four-phase breakdown
  with hardware estimates, the bytes communicated and the model. Without ``--test`` it
  rates the model on the training set itself, and says so (``"evaluated_on": "train"``).
* ``generate OUT_DIR``: write a seeded synthetic set (``--kind dense`` YFCC-like or
  ``sparse`` Criteo-like) as ``train.libsvm`` and ``test.libsvm``, making the folder if
  needed; files already there are kept unless ``--force``.
* ``evaluate MODEL TEST``: rate a model that ``train --json`` wrote on a LIBSVM file.
* ``demo``: every algorithm and format on a small dense set, against scikit-learn.

Errors in the input or the options print one line (with the file and 1-based line for a
bad LIBSVM line) and exit with status 2.

Under ``mpirun -n K``, ``train`` runs on ``K`` servers (one process each,
:class:`pyupmem.apps.distributed.Cluster`): ``--dpus`` is the total over all processes, the
model is the one a single process with all the DPUs trains, bit for bit, and only
process 0 prints and writes ``--json``. An error on any process stops them all.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import NoReturn

import numpy as np

from pyupmem.apps.distributed import Cluster, launcher_rank, run_command
from pyupmem.errors import DpuAllocationError, DpuProfileError

from . import algorithms as alg
from . import baselines, data, evaluation
from .trainer import Trainer, TrainResult

DESCRIPTION = ("Distributed optimisation on DPUs (PIM-Opt's GA-SGD, MA-SGD and ADMM for "
               "logistic regression and linear SVMs, FP32 and INT32): train from LIBSVM "
               "files, generate synthetic sets, rate a model, or run the demo. "
               "'python -m pimopt COMMAND --help' shows each command's options.")

# Configuration errors pyupmem raises that a user fixes in the options (--dpus beyond the
# system, a bad profile): one line and status 2, as the others.
_USAGE_ERRORS = (ValueError, OSError, DpuAllocationError, DpuProfileError)


class _Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default, unless it has none worth showing (None, False)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False or \
                action.default is argparse.SUPPRESS:
            return action.help or ""
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, exit status 2."""

    def error(self, message: str) -> NoReturn:
        if launcher_rank() in (None, 0):  # under mpiexec, process 0 alone says it
            print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _train_options(p: argparse.ArgumentParser) -> None:
    d = alg.Config()
    p.add_argument("--model", choices=alg.MODELS, default="lr",
                   help="logistic regression or a linear SVM")
    p.add_argument("--algorithm", choices=alg.ALGORITHMS, default="ga-sgd",
                   help="gradient averaging, model averaging or ADMM")
    p.add_argument("--fmt", choices=alg.FORMATS, default="fp32",
                   help="the DPUs' number format")
    p.add_argument("--dpus", type=int, default=d.n_dpus, help="number of DPUs")
    p.add_argument("--tasklets", type=int, default=d.n_tasklets, help="tasklets per DPU")
    p.add_argument("--epochs", type=int, default=30, help="passes over the data")
    p.add_argument("--batch", type=int, default=16, help="samples per DPU per step")
    p.add_argument("--lr", type=float, default=0.1, help="initial learning rate")
    p.add_argument("--schedule", choices=alg.SCHEDULES, default="inverse-sqrt",
                   help="how the learning rate decays")
    p.add_argument("--lam", type=float, default=1e-3, help="L2 strength")
    p.add_argument("--rho", type=float, default=d.rho, help="ADMM's penalty")
    p.add_argument("--local-steps", type=int, default=4,
                   help="MA-SGD and ADMM: local steps per sync (0: one epoch)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _trainer(a: argparse.Namespace, **over: object) -> Trainer:
    kw: dict[str, object] = dict(
        model=a.model, algorithm=a.algorithm, fmt=a.fmt, nr_dpus=a.dpus,
        nr_tasklets=a.tasklets, epochs=a.epochs, batch=a.batch, lr=a.lr,
        schedule=a.schedule, lam=a.lam, rho=a.rho, local_steps=a.local_steps,
        progress=not a.no_progress)
    kw.update(over)
    return Trainer(**kw)  # type: ignore[arg-type]


def figures(result: TrainResult, train: data.DataSet, test: data.DataSet) -> dict:
    """The JSON document of a run: accuracy, per-epoch figures, breakdown, bytes, model
    (``test``: the set it is rated on; the training set itself when there is no other)."""
    c = result.config
    epochs = evaluation.per_epoch(result.history, train, test, c.model, c.lam)
    final = evaluation.rate(result.weights, train, test, c.model, c.lam)
    return {
        "test_accuracy": final.test_accuracy,
        "test_auc": final.test_auc,
        "train_loss": final.loss,
        "loss_per_epoch": [e.loss for e in epochs],
        "test_accuracy_per_epoch": [e.test_accuracy for e in epochs],
        "test_auc_per_epoch": [e.test_auc for e in epochs],
        "config": {k: getattr(c, k) for k in c.__dataclass_fields__},
        "breakdown": result.breakdown(),
        "bytes": {"data": result.data_bytes, "to_dpus": result.bytes_to_dpus,
                  "from_dpus": result.bytes_from_dpus, "syncs": result.syncs,
                  "per_sync": result.bytes_per_sync(), "network": result.network()},
        "vectors_in": "wram" if result.wram else "mram",
        "weights": [float(v) for v in result.weights],
    }


def _cmd_train(a: argparse.Namespace) -> int:
    cluster = Cluster.world()
    return run_command(cluster, lambda: _train(a, cluster), "python -m pimopt",
                       expected=_USAGE_ERRORS)


def _train(a: argparse.Namespace, cluster: Cluster) -> int:
    trainer = _trainer(a, cluster=cluster if cluster.size > 1 else None)  # options first
    out = Path(a.json) if a.json else None
    if out is not None and not out.parent.is_dir():
        raise ValueError(f"--json {a.json}: the folder {out.parent} does not exist")
    train = data.read_libsvm(a.train)
    if a.test is not None:
        test = data.read_libsvm(a.test, train.n_features)
        if test.n_features > train.n_features:
            raise ValueError(f"{a.test} has {test.n_features} features, more than the "
                             f"{train.n_features} of {a.train}")
    else:
        test = train
    result = trainer.train(train)
    if not cluster.is_root:
        return 0
    doc = figures(result, train, test)
    doc["evaluated_on"] = "test" if a.test is not None else "train"
    servers = f" ({cluster.size} servers)" if cluster.size > 1 else ""
    rated = ("test accuracy" if a.test is not None
             else "training-set accuracy (no --test: rated on the data it learnt from)")
    print(f"{rated} {100 * doc['test_accuracy']:.2f}% (AUC {doc['test_auc']:.4f}), "
          f"{a.algorithm} {a.model}/{a.fmt} on {a.dpus} DPUs{servers}")
    if result.timer is not None:
        print(result.timer.table(unit="ms", title="time per phase (one training run)"))
    if out is not None:
        out.write_text(json.dumps(doc, indent=1))
    return 0


def _cmd_generate(a: argparse.Namespace) -> int:
    folder = Path(a.out_dir)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{a.out_dir} is not a folder")
    if a.samples < 2:
        raise ValueError(f"--samples must be at least 2 (a training and a test sample), "
                         f"not {a.samples}")
    if a.features < 1:
        raise ValueError(f"--features must be at least 1, not {a.features}")
    data.check_fits(a.samples, a.features, f"--samples {a.samples} --features {a.features}",
                    "ask for fewer samples or features")
    outputs = [folder / "train.libsvm", folder / "test.libsvm"]
    there = [str(p) for p in outputs if p.exists()]
    if there and not a.force:
        raise ValueError(f"{' and '.join(there)} already exist: pass --force to replace "
                         "them, or choose another folder")
    folder.mkdir(parents=True, exist_ok=True)
    if a.kind == "dense":
        ds = data.dense(a.samples, a.features, a.seed)
    else:
        ds = data.sparse(a.samples, a.features, a.seed)
    train, test = data.split(ds, a.test_fraction, a.seed)
    data.write_libsvm(folder / "train.libsvm", train)
    data.write_libsvm(folder / "test.libsvm", test)
    print(f"wrote {len(train)} training and {len(test)} test samples of {ds.n_features} "
          f"features to {folder}")
    return 0


def _cmd_evaluate(a: argparse.Namespace) -> int:
    try:
        doc = json.loads(Path(a.model).read_text())
        w = np.asarray(doc["weights"], dtype=np.float64)
        model = doc["config"]["model"]
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise ValueError(f"{a.model} is not a model written by train --json ({error})"
                         ) from None
    test = data.read_libsvm(a.test, len(w))
    if test.n_features != len(w):
        raise ValueError(f"{a.test} has {test.n_features} features, the model {len(w)}")
    print(f"test accuracy {100 * evaluation.accuracy(w, test):.2f}%, AUC "
          f"{evaluation.auc(w, test):.4f}, loss {evaluation.loss(w, test, model):.4f}")
    return 0


def _cmd_demo(a: argparse.Namespace) -> int:
    train, test = data.split(data.dense(3000, 32, a.seed), 1 / 3, a.seed)
    print(f"{'model':<5} {'algorithm':<8} {'format':<6} {'DPU acc':>8} {'sklearn':>8}")
    for model in alg.MODELS:
        sk = evaluation.accuracy(baselines.sklearn_fit(train, model, 1e-3), test)
        for algorithm in alg.ALGORITHMS:
            for fmt in alg.FORMATS:
                r = Trainer(model, algorithm, fmt, nr_dpus=4, nr_tasklets=4, epochs=30,
                            batch=16, lr=0.1, schedule="inverse-sqrt", lam=1e-3,
                            local_steps=0 if algorithm == "admm" else 4).train(train)
                acc = evaluation.accuracy(r.weights, test)
                print(f"{model:<5} {algorithm:<8} {fmt:<6} {100 * acc:>7.2f}% {100 * sk:>7.2f}%")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m pimopt``."""
    parser = _Parser(prog="python -m pimopt", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    t = sub.add_parser("train", help="train on DPUs from LIBSVM files",
                       description="Train on the DPUs from a LIBSVM file and print the "
                                   "accuracy and the time per phase.",
                       formatter_class=_Formatter)
    t.add_argument("train", help="training set (LIBSVM)")
    t.add_argument("--test", help="test set (LIBSVM); without it the model is rated on the "
                                  "training set, and the output says so")
    t.add_argument("--json", help="write the figures and the model here")
    _train_options(t)
    t.set_defaults(run=_cmd_train)
    g = sub.add_parser("generate", help="write a synthetic set as LIBSVM files",
                       description="Write a seeded synthetic set as OUT_DIR/train.libsvm "
                                   "and OUT_DIR/test.libsvm.",
                       formatter_class=_Formatter)
    g.add_argument("out_dir", help="the folder to write into (made if missing)")
    g.add_argument("--kind", choices=("dense", "sparse"), default="dense",
                   help="YFCC100M-like dense features or Criteo-like hashed one-hot ones")
    g.add_argument("--samples", type=int, default=4096, help="samples in all")
    g.add_argument("--features", type=int, default=data.YFCC_FEATURES,
                   help="features (dense) or hash buckets (sparse)")
    g.add_argument("--seed", type=int, default=0, help="the generator's seed")
    g.add_argument("--test-fraction", type=float, default=0.25,
                   help="the share of the samples kept for the test set")
    g.add_argument("--force", action="store_true", help="replace files already there")
    g.set_defaults(run=_cmd_generate)
    e = sub.add_parser("evaluate", help="rate a model from train --json on a LIBSVM file")
    e.add_argument("model", help="the JSON file train --json wrote")
    e.add_argument("test", help="the set to rate it on (LIBSVM)")
    e.set_defaults(run=_cmd_evaluate)
    d = sub.add_parser("demo", help="every algorithm and format against scikit-learn",
                       formatter_class=_Formatter)
    d.add_argument("--seed", type=int, default=0, help="the data's seed")
    d.set_defaults(run=_cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for a bad input or option)."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except _USAGE_ERRORS as error:
        print(f"python -m pimopt: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
