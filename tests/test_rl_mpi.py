"""rl across servers: ``mpirun -n K python -m rl train`` equals one process with the same
DPUs bit for bit (FP32 and INT32), and the combine's block order matches the CPU
implementations beyond one block."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rl.baseline import train_baseline
from rl.datasets import collect
from rl.trainer import train_dpu
from tests.mpi_support import ROOT, assert_a_usage_error_ends_cleanly, mpich_segments, run_mpi


@pytest.fixture(scope="module")
def taxi(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mpi") / "taxi.npz"
    subprocess.run([sys.executable, "-m", "rl", "collect", "Taxi-v3", "-n", "6000", "-o",
                    str(path)], cwd=ROOT, check=True, capture_output=True)
    return path


def _one_process(dataset: Path, out: Path, options: list[str]) -> np.ndarray:
    env = {**os.environ, "PYUPMEM_EMU_QUIET": "1", "PYUPMEM_EMU_NR_RANKS": "4"}
    subprocess.run([sys.executable, "-m", "rl", "train", str(dataset), "-o", str(out),
                    "--no-progress", *options], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    return np.load(out)["table"]


CASES = [
    (2, ["--dpus", "128", "--tasklets", "3", "--epochs", "2"]),
    (2, ["--dpus", "100", "--tasklets", "2", "--epochs", "2", "--fmt", "int32"]),
    (2, ["--dpus", "128", "--tasklets", "2", "--epochs", "2", "--combine", "mean",
         "--algorithm", "sarsa", "--layout", "stride"]),
    (4, ["--dpus", "256", "--tasklets", "2", "--epochs", "2"]),
    (4, ["--dpus", "250", "--tasklets", "2", "--epochs", "2", "--fmt", "int32",
         "--combine", "weighted", "--layout", "random"]),
]


@pytest.mark.parametrize(("processes", "options"), CASES,
                         ids=[f"{k}procs-{' '.join(o)}" for k, o in CASES])
def test_mpirun_train_equals_one_process(taxi: Path, tmp_path: Path, processes: int,
                                         options: list[str]) -> None:
    want = _one_process(taxi, tmp_path / "one.npz", options)
    result = run_mpi(processes, ["-m", "rl", "train", str(taxi), "-o",
                                 str(tmp_path / "many.npz"), "--no-progress", *options],
                     PYUPMEM_EMU_NR_RANKS="1")
    got = np.load(tmp_path / "many.npz")["table"]
    assert got.dtype == want.dtype
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert np.count_nonzero(got) > 0
    # process 0 alone prints: one summary, one breakdown, with the Inter-server phase
    assert result.stdout.count("time per phase") == 1
    assert "Inter-server" in result.stdout


def test_too_few_dpus_for_the_processes_is_a_clear_error(taxi: Path) -> None:
    before = mpich_segments()
    result = run_mpi(2, ["-m", "rl", "train", str(taxi), "--dpus", "64", "--no-progress"],
                     timeout=60, check=False)
    assert_a_usage_error_ends_cleanly(
        result, "each needs at least one block: use at least 65 DPUs in all", before,
        str(taxi))


@pytest.mark.parametrize("fmt", ["fp32", "int32"])
def test_block_order_beyond_one_block_matches_the_baseline(fmt: str) -> None:
    # 130 DPUs: blocks of 64, 64 and 2 DPUs; the DPU trainer and the numpy baseline
    # both sum within blocks, then over the blocks
    ds = collect("CliffWalking-v0", 4000, seed=3)
    kw = dict(fmt=fmt, n_dpus=130, n_tasklets=2, epochs=2, sync_every=1, alpha=0.3)
    dpu = train_dpu(ds, **kw)
    cpu = train_baseline(ds, **kw)
    assert np.array_equal(dpu.table.view(np.uint32), cpu.table.view(np.uint32))


def test_the_block_order_changes_float_sums_so_the_tests_can_tell() -> None:
    from rl.combine import combine

    # float64 sums: 2**30 absorbs each 2**-25 alone (under half its ulp, 2**-22), but not
    # their block's sum 2**-19; -2**30 then cancels the big value
    q = np.zeros((192, 2, 2), dtype=np.float32)
    q[0], q[64:128], q[128] = 2.0**30, 2.0**-25, -(2.0**30)
    flat = combine(q, rule="mean")
    blocks = combine(q, rule="mean", block=64)
    assert np.all(flat == 0.0)
    assert np.all(blocks == np.float32(2.0**-19 / 192))


def test_a_bad_option_under_mpiexec_is_said_once(taxi: Path) -> None:
    before = mpich_segments()
    result = run_mpi(2, ["-m", "rl", "train", str(taxi), "--epochs", "many-rl"], timeout=60,
                     check=False)
    assert_a_usage_error_ends_cleanly(result, "argument --epochs: invalid", before, "many-rl")
