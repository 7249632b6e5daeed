"""python -m pimopt: generate, train --json, evaluate, and one-line errors with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pimopt.__main__ import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pimopt")
    assert main(["generate", str(folder), "--samples", "800", "--features", "12",
                 "--seed", "1"]) == 0
    return folder


def test_train_writes_json(files, capsys):
    out = files / "run.json"
    rc = main(["train", str(files / "train.libsvm"), "--test", str(files / "test.libsvm"),
               "--model", "svm", "--algorithm", "ma-sgd", "--fmt", "int32", "--dpus", "3",
               "--tasklets", "4", "--epochs", "5", "--json", str(out), "--no-progress"])
    assert rc == 0
    doc = json.loads(out.read_text())
    printed = capsys.readouterr().out
    assert f"test accuracy {100 * doc['test_accuracy']:.2f}%" in printed
    assert 0.6 < doc["test_accuracy"] <= 1.0
    assert len(doc["loss_per_epoch"]) == 5 and len(doc["test_auc_per_epoch"]) == 5
    for phase in ("CPU-DPU", "DPU kernel", "Inter-DPU", "DPU-CPU"):
        assert doc["breakdown"][phase]["estimated_seconds"] >= 0
    assert doc["bytes"]["per_sync"]["from_dpus"] == 3 * 12 * 4
    assert len(doc["weights"]) == 12
    assert main(["evaluate", str(out), str(files / "test.libsvm")]) == 0
    assert f"{100 * doc['test_accuracy']:.2f}%" in capsys.readouterr().out


def test_bad_line_is_one_error_with_exit_2(files, tmp_path):
    bad = tmp_path / "bad.libsvm"
    bad.write_text("+1 1:0.5\n-1 1:0.5 2\n")
    run = subprocess.run([sys.executable, "-m", "pimopt", "train", str(bad), "--test",
                          str(files / "test.libsvm")], capture_output=True, text=True)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{bad}, line 2" in lines[0]


@pytest.mark.parametrize("args, words", [
    (["--dpus", "0"], "n_dpus=0"),
    (["--fmt", "int32", "--lr", "1.5"], "outside [0, 1)"),
    (["--model", "tree"], "invalid choice"),
])
def test_bad_options_exit_2(files, capsys, args, words):
    argv = ["train", str(files / "train.libsvm"), "--test", str(files / "test.libsvm"), *args]
    try:
        rc = main(argv)
    except SystemExit as stop:
        rc = stop.code
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]


def test_missing_file_exits_2(capsys, tmp_path):
    assert main(["train", str(tmp_path / "none"), "--test", str(tmp_path / "none")]) == 2
    assert "No such file" in capsys.readouterr().err
