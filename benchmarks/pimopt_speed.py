"""pimopt's emulated DPU training against a native C loop per core and the numpy baseline,
in the same shape, in one run.

On one dense set (``--samples`` x ``--features``, logistic regression, MA-SGD with one
local epoch per launch, batch 16, lr 0.1, lam 1e-3) it times, for FP32 and INT32:

* the native C loop ``pimopt_native.c`` (``gcc -O2``): one core doing the local SGD
  steps of one DPU on all the samples, ``--epochs`` epochs;
* the emulated DPU kernel on one DPU with 16 tasklets (one emulator worker, one core),
  all samples, one launch per epoch: the time of its launches alone;
* the emulated DPU training on ``--dpus`` DPUs (the whole run's four phases), per core;
* the numpy baseline (:func:`pimopt.baselines.numpy_train`) in the ``--dpus`` shape.

Rates are samples x epochs per second; every figure is the fastest of ``--repeat`` runs
(other jobs share the cores)::

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


def native(fmt: str, ds: data.DataSet, epochs: int, batch: int, tmp: Path) -> float:
    """Seconds of the native C loop on ``ds``."""
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
    out = subprocess.run([str(exe), str(blob), str(epochs), str(batch)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0])


def main() -> int:
    """Run the comparison and print the table; returns 0."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=16384)
    p.add_argument("--features", type=int, default=128)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--dpus", type=int, default=16)
    p.add_argument("--repeat", type=int, default=2)
    a = p.parse_args()
    ds = data.dense(a.samples, a.features, seed=0)
    work = a.samples * a.epochs
    cores = os.cpu_count() or 1
    common = dict(model="lr", algorithm="ma-sgd", epochs=a.epochs, batch=16, lr=0.1,
                  lam=1e-3, local_steps=0)
    print(f"pimopt speed: {a.samples} samples x {a.features} features, {a.epochs} epochs, "
          f"LR MA-SGD, batch 16; {cores} cores, backend {pyupmem.default_backend().kind}")
    print(f"{'format':<6} {'what':<44} {'samples/s':>11} {'vs native':>10}")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for fmt in alg.FORMATS:
            nat = min(native(fmt, ds, a.epochs, 16, tmp) for _ in range(a.repeat))
            one = many = 1e30
            for _ in range(a.repeat):
                r1 = Trainer(fmt=fmt, nr_dpus=1, nr_tasklets=16, **common).train(ds)
                assert r1.timer is not None
                one = min(one, r1.timer.stats()[pyupmem.DPU_KERNEL].mean)
                rd = Trainer(fmt=fmt, nr_dpus=a.dpus, nr_tasklets=16, **common).train(ds)
                assert rd.timer is not None
                many = min(many, rd.timer.total())
            cfg = alg.make_config(fmt="fp32", n_dpus=a.dpus, n_tasklets=16, **common)
            start = time.perf_counter()
            baselines.numpy_train(ds, cfg)
            npy = time.perf_counter() - start
            rows = [("native C loop, 1 core", nat),
                    ("emulated DPU kernel, 1 DPU x 16 tasklets", one),
                    (f"emulated DPUs, {a.dpus} DPUs, whole run, per core", many * cores),
                    (f"numpy baseline, {a.dpus}-DPU shape (fp32)", npy)]
            for name, sec in rows:
                rate = work / sec
                print(f"{fmt:<6} {name:<44} {rate:>11,.0f} {nat / sec:>9.2f}x")
    print("(target: emulated DPU training >= 0.7x the native C loop per core)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
