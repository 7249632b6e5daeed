"""Distributed optimisation on DPUs (the PIM-Opt workload): logistic regression trained
with GA-SGD, MA-SGD and ADMM on 256 to 2,048 emulated DPUs, against CPU baselines
measured in the same run.

Run it from the repository root::

    .venv/bin/python docs/tutorials/distributed_optimisation.py
"""

# [start-data]
import time

from pimopt import Trainer, baselines, data, evaluation
from pimopt.algorithms import make_config

# A YFCC-like dense set with a planted model: 16,384 training samples (8 per DPU at 2,048
# DPUs) and 4,096 test samples, 64 features (the real set has 4,096: fewer keep the
# emulation short; the per-sample work scales with them on DPUs and CPU alike).
full = data.dense(n=16384 + 4096, n_features=64, seed=0)
train, test = data.split(full, test_fraction=4096 / (16384 + 4096), seed=0)
print(f"{len(train.y):,} training and {len(test.y):,} test samples, {train.x.shape[1]} features")
# [end-data]

# [start-baselines]
SETTINGS = dict(model="lr", epochs=10, batch=8, lr=0.1, schedule="inverse-sqrt", lam=1e-3,
                rho=0.1, local_steps=0)
started = time.perf_counter()
reference = baselines.sklearn_fit(train, "lr", lam=1e-3)
sklearn_ms = (time.perf_counter() - started) * 1e3
started = time.perf_counter()
numpy_w = baselines.numpy_train(train, make_config(algorithm="ga-sgd", fmt="fp32", n_dpus=256,
                                                   n_tasklets=8, **SETTINGS))
numpy_ms = (time.perf_counter() - started) * 1e3
print(f"scikit-learn LogisticRegression: accuracy {evaluation.accuracy(reference, test):.3f}, "
      f"{sklearn_ms:.0f} ms on this CPU")
print(f"numpy GA-SGD (256 workers): accuracy {evaluation.accuracy(numpy_w, test):.3f}, "
      f"{numpy_ms:.0f} ms on this CPU")
# [end-baselines]

# [start-dpus]
print(f"{'algorithm':<8} {'fmt':<6} {'DPUs':>5} {'accuracy':>9} {'DPUs, hardware ms':>18} "
      f"{'host ms':>8}")
for fmt in ("int32", "fp32"):
    for algorithm in ("ga-sgd", "ma-sgd", "admm"):
        for nr_dpus in (256, 512, 1024, 2048):
            if fmt == "fp32" and nr_dpus != 2048:
                continue  # FP32 once, at the largest system, against INT32
            result = Trainer(algorithm=algorithm, fmt=fmt, nr_dpus=nr_dpus, nr_tasklets=8,
                             **SETTINGS).train(train)
            phases = result.breakdown()
            on_dpus = sum(phases[p]["estimated_seconds"]
                          for p in ("CPU-DPU", "DPU kernel", "DPU-CPU"))
            host = phases["Inter-DPU"]["seconds"]
            print(f"{algorithm:<8} {fmt:<6} {nr_dpus:>5} "
                  f"{evaluation.accuracy(result.weights, test):>9.3f} {on_dpus * 1e3:>15.2f} ms "
                  f"{host * 1e3:>5.1f} ms")
# [end-dpus]

# [start-accuracy]
# Both models, every algorithm and format, at convergence (30 epochs, 64 DPUs), against
# scikit-learn on the same data. (LinearSVC's solver stops at its iteration cap on this
# set and warns; its accuracy has settled by then.)
import warnings  # noqa: E402

from sklearn.exceptions import ConvergenceWarning  # noqa: E402

warnings.filterwarnings("ignore", category=ConvergenceWarning)
print(f"{'model':<5} {'scikit-learn':>12} " + " ".join(
    f"{a + ' ' + f:>13}" for a in ("ga-sgd", "ma-sgd", "admm") for f in ("int32", "fp32")))
for model in ("lr", "svm"):
    settings = dict(SETTINGS, model=model, epochs=30)
    reference = evaluation.accuracy(baselines.sklearn_fit(train, model, lam=1e-3), test)
    row = [f"{model:<5} {reference:>12.3f}"]
    for algorithm in ("ga-sgd", "ma-sgd", "admm"):
        for fmt in ("int32", "fp32"):
            result = Trainer(algorithm=algorithm, fmt=fmt, nr_dpus=64, nr_tasklets=8,
                             **settings).train(train)
            row.append(f"{evaluation.accuracy(result.weights, test):>13.3f}")
    print(" ".join(row))
# [end-accuracy]
