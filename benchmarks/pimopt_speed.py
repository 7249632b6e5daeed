"""pimopt's emulated DPU training against native C loops on one core and the numpy
baseline, in the same shape, in one run.

On one dense set (``--samples`` x ``--features``, logistic regression, MA-SGD with one
local epoch per launch, batch 16, lr 0.1, lam 1e-3) it times, for FP32 and INT32:

* the plain native C loop (``pimopt_native.c``, ``gcc -O2``): one core doing the local
  SGD steps of one DPU on all the samples, ``--epochs`` epochs, one accumulator;
* the native C loop of the kernel's own steps (``pimopt_native.c`` with ``--tasklets``,
  16): the tasklets' accumulators, their sum in tasklet order, the kernel's update, one
  tasklet after another; its model must equal the emulated DPU's bit for bit (checked);
* the emulated DPU kernel on one DPU with ``--tasklets`` (one emulator worker, one core),
  all samples, one launch per epoch: the time of its launches alone;
* the emulated DPU training on ``--dpus`` DPUs (the whole run's four phases), per core;
* the numpy baseline (:func:`pimopt.baselines.numpy_train`) in the ``--dpus`` shape.

Rates are samples x epochs per second, each row also as a ratio to both native loops;
every figure is the fastest of ``--repeat`` runs (other jobs share the cores)::

    .venv/bin/python benchmarks/pimopt_speed.py
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyupmem  # noqa: E402
from pimopt import algorithms as alg  # noqa: E402
from pimopt import baselines, data  # noqa: E402
from pimopt import fixed_point as fx  # noqa: E402
from pimopt.reference import raw_features  # noqa: E402
from pimopt.trainer import Trainer  # noqa: E402

HERE = Path(__file__).resolve().parent


def build_native(fmt: str, ds: data.DataSet, tmp: Path) -> tuple[Path, Path, np.dtype]:
    """``pimopt_native.c`` compiled for ``fmt`` and ``ds`` written in its input format:
    the program, the data file and the model's dtype."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        raise SystemExit("no C compiler (gcc) found")
    exe = tmp / f"native_{fmt}"
    flags = ["-DFORMAT_INT32"] if fmt == "int32" else []
    subprocess.run([cc, "-std=c11", "-O2", "-Wall", "-Wextra", *flags,
                    f"-I{HERE.parent / 'dpu_programs' / 'common'}", "-o", str(exe),
                    str(HERE / "pimopt_native.c")], check=True)
    x = raw_features(fmt, ds.x, ds.n_features)
    table = fx.sigmoid_table_f32() if fmt == "fp32" else fx.sigmoid_table_q16()
    blob = tmp / f"data_{fmt}.bin"
    with open(blob, "wb") as f:
        f.write(np.array([len(ds), ds.n_features], np.uint32).tobytes())
        f.write(x.tobytes())
        f.write(ds.labels("lr").astype(np.int32).tobytes())
        f.write(np.append(table, table[-1]).tobytes())
    return exe, blob, x.dtype


def native(built: tuple[Path, Path, np.dtype], epochs: int, batch: int, tasklets: int,
           coefficients: dict[str, int]) -> tuple[float, np.ndarray]:
    """Seconds of a native C loop (``tasklets`` 0: the plain loop; else the kernel's steps
    with that many tasklets) of :func:`build_native`'s program, and its model."""
    exe, blob, dtype = built
    model = blob.with_name(f"model_{exe.name}.bin")
    k = coefficients
    args = [str(v) for v in (epochs, batch, tasklets, k["lr"], k["lr_shift"], k["lam"],
                             k["lam_shift"])]
    out = subprocess.run([str(exe), str(blob), *args, str(model)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), np.fromfile(model, dtype=dtype)


def main() -> int:
    """Run the comparison and print the table; returns 0."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=16384)
    p.add_argument("--features", type=int, default=128)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--dpus", type=int, default=16)
    p.add_argument("--tasklets", type=int, default=16)
    p.add_argument("--repeat", type=int, default=2)
    a = p.parse_args()
    ds = data.dense(a.samples, a.features, seed=0)
    work = a.samples * a.epochs
    cores = os.cpu_count() or 1
    common = dict(model="lr", algorithm="ma-sgd", epochs=a.epochs, batch=16, lr=0.1,
                  lam=1e-3, local_steps=0)
    print(f"pimopt speed: {a.samples} samples x {a.features} features, {a.epochs} epochs, "
          f"LR MA-SGD, batch 16; {cores} cores, backend {pyupmem.default_backend().kind}")
    print(f"{'format':<6} {'what':<46} {'samples/s':>11} {'vs plain':>9} {'vs steps':>9}")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for fmt in alg.FORMATS:
            cfg = alg.make_config(fmt=fmt, n_dpus=a.dpus, n_tasklets=a.tasklets, **common)
            k = alg.coefficients(cfg, cfg.lr)
            built = build_native(fmt, ds, tmp)
            plain = min(native(built, a.epochs, 16, 0, k)[0] for _ in range(a.repeat))
            steps, steps_model = 1e30, None
            for _ in range(a.repeat):
                seconds, steps_model = native(built, a.epochs, 16, a.tasklets, k)
                steps = min(steps, seconds)
            one = many = 1e30
            for _ in range(a.repeat):
                r1 = Trainer(fmt=fmt, nr_dpus=1, nr_tasklets=a.tasklets, **common).train(ds)
                assert r1.timer is not None
                one = min(one, r1.timer.stats()[pyupmem.DPU_KERNEL].mean)
                rd = Trainer(fmt=fmt, nr_dpus=a.dpus, nr_tasklets=a.tasklets, **common).train(ds)
                assert rd.timer is not None
                many = min(many, rd.timer.total())
            if not np.array_equal(r1.raw[: ds.n_features].view(np.uint32),
                                  steps_model.view(np.uint32)):
                raise SystemExit(f"{fmt}: the native kernel steps and the DPU disagree")
            cfg32 = alg.make_config(fmt="fp32", n_dpus=a.dpus, n_tasklets=a.tasklets, **common)
            start = time.perf_counter()
            baselines.numpy_train(ds, cfg32)
            npy = time.perf_counter() - start
            rows = [("native C loop, plain SGD, 1 core", plain),
                    ("native C loop, the kernel's steps, 1 core", steps),
                    (f"emulated DPU kernel, 1 DPU x {a.tasklets} tasklets", one),
                    (f"emulated DPUs, {a.dpus} DPUs, whole run, per core", many * cores),
                    (f"numpy baseline, {a.dpus}-DPU shape (fp32)", npy)]
            for name, sec in rows:
                print(f"{fmt:<6} {name:<46} {work / sec:>11,.0f} {plain / sec:>8.2f}x "
                      f"{steps / sec:>8.2f}x")
        print("(the kernel's steps give the emulated DPU's model bit for bit: checked)")
    print("(target: emulated DPU training >= 0.7x the native C loop per core)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
