"""pimopt across servers: ``mpirun -n K python -m pimopt train`` gives the model one
process with the same DPUs gives, bit for bit, for every algorithm in FP32 and INT32;
only process 0 prints and writes the JSON, which has the Inter-server phase and the
bytes that crossed the network."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pimopt import data
from pimopt.__main__ import main
from pimopt.trainer import RANK_DPUS, Trainer, block_sums, combine
from pyupmem.apps.distributed import Cluster
from tests.mpi_support import assert_a_usage_error_ends_cleanly, mpich_segments, run_mpi

# (processes, total DPUs): 192 DPUs are 3 blocks, 2 + 1 over 2 processes; 250 DPUs are
# 4 blocks, the last one short
SHAPES = [(2, 192), (4, 250)]
ALGORITHMS = ["ga-sgd", "ma-sgd", "admm"]
FORMATS = ["fp32", "int32"]
# Every pair of (shape, algorithm, format) values meets in some case: each algorithm in
# both formats, each shape with every algorithm and both formats (6 runs, not all 12).
CASES = [
    (*shape, algorithm, FORMATS[(i + j) % 2])
    for i, shape in enumerate(SHAPES)
    for j, algorithm in enumerate(ALGORITHMS)
]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pimopt_mpi")
    # 900 training samples: 3 to 5 a DPU, so that batches of 2 make 2 or 3 steps an epoch
    assert main(["generate", str(folder), "--samples", "1200", "--features", "21",
                 "--seed", "5"]) == 0
    return folder


def _options(folder: Path, dpus: int, algorithm: str, fmt: str, out: Path) -> list[str]:
    return ["train", str(folder / "train.libsvm"), "--test", str(folder / "test.libsvm"),
            "--dpus", str(dpus), "--tasklets", "2", "--epochs", "2", "--batch", "2",
            "--local-steps", "2", "--algorithm", algorithm, "--fmt", fmt, "--lr", "0.3",
            "--schedule", "inverse", "--json", str(out), "--no-progress"]


@pytest.mark.parametrize(("processes", "dpus", "algorithm", "fmt"), CASES,
                         ids=[f"{k}procs-{d}dpus-{a}-{f}" for k, d, a, f in CASES])
def test_mpirun_train_equals_one_process(files: Path, tmp_path: Path, capsys,
                                         processes: int, dpus: int, algorithm: str,
                                         fmt: str) -> None:
    assert main(_options(files, dpus, algorithm, fmt, tmp_path / "one.json")) == 0
    capsys.readouterr()
    one = json.loads((tmp_path / "one.json").read_text())
    result = run_mpi(processes, ["-m", "pimopt",
                                 *_options(files, dpus, algorithm, fmt, tmp_path / "many.json")],
                     timeout=60, PYUPMEM_EMU_NR_RANKS="2")
    many = json.loads((tmp_path / "many.json").read_text())
    # the JSON weights are the float32 or Q15.16 model, exactly, as float64
    assert any(w != 0.0 for w in one["weights"])
    assert many["weights"] == one["weights"]
    assert many["test_accuracy"] == one["test_accuracy"]
    assert many["loss_per_epoch"] == one["loss_per_epoch"]  # every epoch's model too
    # process 0 alone prints and writes; the breakdown has the Inter-server phase
    assert result.stdout.count("time per phase") == 1
    assert result.stdout.count("test accuracy") == 1
    assert f"({processes} servers)" in result.stdout
    assert "Inter-server" in many["breakdown"] and "Inter-server" not in one["breakdown"]
    assert many["breakdown"]["Inter-server"]["seconds"] > 0
    # what crossed the network: every block's partial to every other process
    blocks = -(-dpus // RANK_DPUS)
    partial = 22 * (4 if fmt == "fp32" else 8)  # 21 features padded to 22
    net = many["bytes"]["network"]
    assert (net["processes"], net["blocks"], net["partial_bytes"]) == (processes, blocks,
                                                                        partial)
    assert net["per_sync"] == (processes - 1) * blocks * partial
    assert net["total"] == net["per_sync"] * many["bytes"]["syncs"]
    share = -(-900 // dpus)  # the largest share of the 900 samples
    steps = 2 * -(-share // 2)  # 2 epochs of ceil(share / batch)
    assert net["per_step"] == pytest.approx(net["total"] / steps)
    if algorithm == "ga-sgd":  # one combine a step; MA-SGD and ADMM one every 2 steps
        assert net["per_step"] == net["per_sync"]
    else:
        assert net["per_step"] < net["per_sync"]
    assert one["bytes"]["network"]["total"] == 0
    for key in ("data", "to_dpus", "from_dpus", "syncs"):  # the DPUs' bytes of all servers
        assert many["bytes"][key] == one["bytes"][key]


def test_too_few_dpus_for_the_processes_is_a_clear_error(files: Path, tmp_path: Path) -> None:
    before = mpich_segments()
    result = run_mpi(2, ["-m", "pimopt", *_options(files, 64, "ga-sgd", "fp32",
                                                    tmp_path / "x.json")],
                     timeout=60, check=False)
    assert_a_usage_error_ends_cleanly(
        result, "each needs at least one block: use at least 65 DPUs in all", before,
        str(tmp_path))
    assert not (tmp_path / "x.json").exists()


def test_block_sums_then_sum_in_order_is_combine() -> None:
    # the path a cluster takes (its blocks' sums, then all blocks left to right) against
    # combine(); and a flat left-to-right float32 sum differs on these values, so the
    # block order is what the equality rests on
    rng = np.random.default_rng(1)
    p = (rng.standard_normal((200, 7)) * 10.0 ** rng.integers(-6, 7, (200, 7))).astype(
        np.float32)
    want = combine(p)
    got = Cluster.single().sum_in_order(np.concatenate([block_sums(p[:128]),
                                                        block_sums(p[128:])]))
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    flat = np.cumsum(p, axis=0, dtype=np.float32)[-1]
    assert not np.array_equal(flat, want)
    q = rng.integers(-2**31, 2**31, (200, 3), dtype=np.int64).astype(np.int32)
    assert block_sums(q).dtype == np.int64
    assert np.array_equal(combine(q), q.astype(np.int64).sum(axis=0))


def test_a_single_process_cluster_changes_nothing() -> None:
    ds = data.dense(300, 9, seed=2)
    kw = dict(algorithm="admm", fmt="fp32", nr_dpus=70, nr_tasklets=2, epochs=1, batch=2,
              local_steps=1)
    plain = Trainer(**kw).train(ds)
    single = Trainer(**kw, cluster=Cluster.single()).train(ds)
    assert np.array_equal(plain.raw.view(np.uint32), single.raw.view(np.uint32))
    assert single.network_bytes == 0 and single.processes == 1 and single.blocks == 2
    assert "Inter-server" not in single.breakdown()


def test_a_bad_option_under_mpiexec_is_said_once(files: Path) -> None:
    before = mpich_segments()
    result = run_mpi(2, ["-m", "pimopt", "train", str(files / "train.libsvm"), "--bogus-pimopt"],
                     timeout=60, check=False)
    assert_a_usage_error_ends_cleanly(result, "unrecognized arguments: --bogus-pimopt", before,
                                      "--bogus-pimopt")
