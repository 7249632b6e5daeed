"""The ``python -m rl`` command line: demo, collect -> train -> evaluate, errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from rl import datasets
from rl.__main__ import load_table, main

SMALL = ["--dpus", "4", "--tasklets", "4", "--epochs", "5", "--no-progress"]


def test_demo_prints_breakdown_and_quality(capsys):
    assert main(["demo", "-n", "20000", "--episodes", "50", *SMALL]) == 0
    out = capsys.readouterr().out
    for text in ("collected 20,000 transitions", "CPU-DPU", "DPU kernel", "Inter-DPU",
                 "DPU-CPU", "of the optimal success rate", "learners"):
        assert text in out, text


def test_collect_train_evaluate_round_trip(tmp_path: Path, capsys):
    data = tmp_path / "cliff.npz"
    assert main(["collect", "CliffWalking-v0", "-n", "5000", "--seed", "3", "-o", str(data)]) == 0
    ds = datasets.load(data)
    assert len(ds) == 5000 and ds.env_id == "CliffWalking-v0"
    table = tmp_path / "table.npz"
    assert main(["train", str(data), "-o", str(table), "--fmt", "int32", "--evaluate",
                 "--episodes", "5", *SMALL]) == 0
    out = capsys.readouterr().out
    assert "tables in WRAM" in out and "policy quality on CliffWalking-v0" in out
    values, env_id = load_table(table)
    assert values.dtype == np.int32 and values.shape == (48, 4) and env_id == "CliffWalking-v0"
    assert main(["evaluate", str(table), "--episodes", "5"]) == 0
    assert "optimal policy" in capsys.readouterr().out
    # SwiftRL text: the environment gives the terminal flags
    text = tmp_path / "cliff.txt"
    assert main(["collect", "CliffWalking-v0", "-n", "2000", "-o", str(text), "--text"]) == 0
    assert main(["train", str(text), "--env", "CliffWalking-v1", *SMALL]) == 0
    assert "2,000 transitions" in capsys.readouterr().out


def test_errors_name_the_problem(tmp_path: Path, capsys):
    assert main(["collect", "Pong-v5", "-o", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "unknown environment 'Pong-v5'" in err and "FrozenLake-v1" in err
    assert main(["train", str(tmp_path / "missing.npz")]) == 2
    assert "no such dataset file" in capsys.readouterr().err
    assert main(["demo", "--dpus", "0", "-n", "100"]) == 2
    assert "--dpus 0 is out of range: it must lie in 1..2560" in capsys.readouterr().err


def test_module_runs_as_a_program():
    result = subprocess.run([sys.executable, "-m", "rl", "--help"], capture_output=True,
                            text=True, check=True)
    for command in ("demo", "collect", "train", "evaluate", "quality"):
        assert command in result.stdout
