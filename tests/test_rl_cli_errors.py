"""Every bad input and option of ``python -m rl`` gives one line, exit status 2, in the
command line's terms, before any training; a closed pipe is quiet; counters never wrap."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rl import datasets, kernel
from rl.__main__ import load_table, main
from rl.reference import train_reference
from rl.trainer import Trainer, launch_schedule

ROOT = Path(__file__).resolve().parent.parent
SMALL = ["--dpus", "2", "--tasklets", "2", "--epochs", "2", "--no-progress"]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("cli")
    ds = datasets.collect("FrozenLake-v1", 300, seed=1)
    out = {"npz": ds.save(tmp / "frozen.npz"), "text": ds.save_swiftrl_text(tmp / "frozen.txt")}
    empty = tmp / "empty.txt"
    empty.write_text("# nothing here\n")
    out["empty"] = empty
    out["empty_npz"] = ds.select(slice(0, 0)).save(tmp / "empty.npz")
    data = out["npz"].read_bytes()
    (tmp / "truncated.npz").write_bytes(data[: len(data) // 2])
    out["truncated"] = tmp / "truncated.npz"
    (tmp / "binary.dat").write_bytes(bytes(range(256)) * 4)
    out["binary"] = tmp / "binary.dat"
    lines = out["text"].read_text().splitlines()
    bad = tmp / "bad_state.txt"  # a comment first, so data line 3 is file line 4
    bad.write_text("# header\n" + "\n".join(lines[:2] + ["99 0 0 1"] + lines[2:]) + "\n")
    out["bad_state"] = bad
    shaped = tmp / "shaped.txt"  # FrozenLake never pays 5
    s, a, _, s2 = lines[0].split()
    shaped.write_text("\n".join(lines[:5] + [f"{s} {a} 5 {s2}"]) + "\n")
    out["shaped"] = shaped
    out["dir"] = tmp
    return out


def _error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("python -m rl "), err
    assert "Traceback" not in err and "np.float" not in err and "nr_dpus" not in err
    return err


def test_empty_dataset(capsys, files):
    err = _error(capsys, ["train", str(files["empty"]), "--env", "FrozenLake-v1", *SMALL])
    assert f"{files['empty']}: the dataset has no transitions" in err
    err = _error(capsys, ["train", str(files["empty_npz"]), *SMALL])
    assert "has no transitions" in err


def test_epochs_out_of_range(capsys, files):
    err = _error(capsys, ["train", str(files["npz"]), *SMALL, "--epochs", "4294967296"])
    assert "--epochs 4294967296 is out of range: it must lie in 1..4294967295" in err
    err = _error(capsys, ["train", str(files["npz"]), *SMALL, "--epochs", "0"])
    assert "--epochs 0 is out of range" in err


def test_counters_never_overflow(monkeypatch):
    """Launches are split so that no tasklet's uint32 counter wraps (the limit is made
    tiny here); the tables still equal the reference, whose counts saturate."""
    assert list(launch_schedule(5, 0, 3)) == [(5, 0, False)]
    assert list(launch_schedule(2, 1, 3, 2)) == [(1, 0, True), (1, 1, True), (1, 0, True),
                                                 (1, 1, False)]
    monkeypatch.setattr(kernel, "COUNTER_MAX", 100)
    assert list(launch_schedule(5, 2, 40)) == [(2, 0, True), (2, 0, True), (1, 0, False)]
    assert list(launch_schedule(7, 0, 40)) == [(2, 0, False)] * 3 + [(1, 0, False)]
    ds = datasets.collect("FrozenLake-v1", 150, seed=3)
    kw = dict(n_dpus=2, n_tasklets=1, epochs=7, sync_every=0, alpha=0.3, gamma=0.9)
    result = Trainer(nr_dpus=2, nr_tasklets=1, epochs=7, sync_every=0, alpha=0.3, gamma=0.9,
                     progress=False).train(ds)
    ref = train_reference(ds, **kw)
    assert result.table.tobytes() == ref.table.tobytes()
    assert np.array_equal(result.counts, ref.counts)


def test_truncated_npz_and_binary_files(capsys, files):
    err = _error(capsys, ["train", str(files["truncated"]), *SMALL])
    assert f"{files['truncated']}: not a readable .npz dataset" in err
    err = _error(capsys, ["train", str(files["binary"]), "--env", "FrozenLake-v1", *SMALL])
    assert f"{files['binary']}:" in err and "not text" in err
    err = _error(capsys, ["evaluate", str(files["text"])])
    assert f"{files['text']}: not a table saved by 'python -m rl train -o'" in err
    err = _error(capsys, ["evaluate", str(files["truncated"])])
    assert "not a table" in err or "not a readable table" in err


def test_line_numbers_are_one_based_and_name_the_file(capsys, files):
    err = _error(capsys, ["train", str(files["bad_state"]), "--env", "FrozenLake-v1", *SMALL])
    assert f"{files['bad_state']}:4: has state=99, outside the table (0..15)" in err
    # a dataset checked against an environment's model names the line as well
    err = _error(capsys, ["train", str(files["bad_state"]), "--env", "Taxi-v3", *SMALL])
    assert f"{files['bad_state']}:" in err


def test_messages_speak_cli(capsys, files):
    err = _error(capsys, ["train", str(files["npz"]), *SMALL, "--fmt", "int32",
                          "--gamma", "1.0"])
    assert "--gamma 1.0" in err and "--fmt fp32" in err
    err = _error(capsys, ["train", str(files["npz"]), *SMALL, "--alpha", "1.5"])
    assert "--alpha 1.5 is out of range: it must lie in 0.0..1.0" in err
    err = _error(capsys, ["train", str(files["npz"]), *SMALL, "--tasklets", "25"])
    assert "--tasklets 25" in err


def test_rewards_and_transitions_checked_against_the_env(capsys, files):
    err = _error(capsys, ["train", str(files["shaped"]), "--env", "FrozenLake-v1", *SMALL])
    assert f"{files['shaped']}:6: reward 5" in err and "--no-reward-check" in err
    assert main(["train", str(files["shaped"]), "--env", "FrozenLake-v1", "--no-reward-check",
                 *SMALL]) == 0
    capsys.readouterr()
    err = _error(capsys, ["train", str(files["npz"]), "--env", "Taxi-v3", *SMALL])
    assert "FrozenLake-v1 transitions, not Taxi-v3" in err


def test_options_checked_before_training(capsys, files, monkeypatch):
    def no_training(*args, **kwargs):
        raise AssertionError("training started")

    monkeypatch.setattr(Trainer, "train", no_training)
    text = str(files["text"])
    err = _error(capsys, ["train", text, "--terminals", "none", "--evaluate", *SMALL])
    assert "--evaluate needs the environment" in err and "--env" in err
    err = _error(capsys, ["train", str(files["npz"]), "--evaluate", "--episodes", "0", *SMALL])
    assert "--episodes 0 is out of range" in err
    err = _error(capsys, ["train", str(files["npz"]), "-o", "/nonexistent/dir/t.npz", *SMALL])
    assert "--output /nonexistent/dir/t.npz: the directory /nonexistent/dir does not exist" \
        in err
    if os.geteuid() != 0:
        locked = files["dir"] / "locked"
        locked.mkdir(exist_ok=True)
        locked.chmod(0o500)
        err = _error(capsys, ["train", str(files["npz"]), "-o", str(locked / "t"), *SMALL])
        assert "permission denied" in err
    err = _error(capsys, ["train", str(files["npz"]), "--evaluate", "--gamma", "1", *SMALL])
    assert "--gamma below 1" in err


def test_text_dataset_needs_terminal_marking(capsys, files):
    err = _error(capsys, ["train", str(files["text"]), *SMALL])
    assert "no terminal flags" in err and "--env" in err and "--terminals none" in err
    assert main(["train", str(files["text"]), "--terminals", "none", *SMALL]) == 0
    capsys.readouterr()
    assert main(["train", str(files["text"]), "--terminals", "5,7,11,12,15", *SMALL]) == 0
    capsys.readouterr()
    err = _error(capsys, ["train", str(files["text"]), "--terminals", "five", *SMALL])
    assert "--terminals five" in err


def test_evaluate_uses_the_training_gamma(capsys, files, tmp_path):
    table = tmp_path / "t.npz"
    assert main(["train", str(files["npz"]), "-o", str(table), "--gamma", "0.9", "--evaluate",
                 "--episodes", "5", *SMALL]) == 0
    assert "optimal policy (value iteration, gamma 0.9)" in capsys.readouterr().out
    assert main(["evaluate", str(table), "--episodes", "5"]) == 0
    assert "gamma 0.9)" in capsys.readouterr().out
    assert load_table(table)[1] == "FrozenLake-v1"


def test_closed_pipe_is_quiet_and_the_table_is_written(files, tmp_path):
    table = tmp_path / "piped.npz"
    env = dict(os.environ, PYUPMEM_EMU_QUIET="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "rl", "train", str(files["npz"]), "-o", str(table), *SMALL],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )
    proc.stdout.close()  # like '| head -0': the reader is gone before the first line
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert b"Traceback" not in err and b"BrokenPipe" not in err, err
    assert table.is_file()


def test_a_garbage_npz_gives_one_clear_error(capsys, tmp_path, files):
    """Not numpy's advice to pass allow_pickle=True: the file, what is wrong, the fix."""
    text = tmp_path / "garbage.npz"
    text.write_text("state action reward next_state\n")
    pickled = tmp_path / "pickled.npz"  # a real .npz, holding Python objects
    np.savez(pickled, format=np.array([{"not": "a dataset"}], dtype=object))
    other = tmp_path / "other.npz"  # a real .npz of something else
    np.savez(other, weights=np.zeros(3))
    missing = tmp_path / "missing.npz"  # the marker, but no transitions
    np.savez(missing, format=np.array("rl-dataset-1"))
    cases = {
        text: "not an .npz file",
        pickled: "it holds pickled Python objects",
        other: "an .npz without the 'rl-dataset-1' marker",
        missing: "its fields env_id, n_states",
    }
    for path, problem in cases.items():
        err = _error(capsys, ["train", str(path), *SMALL])
        what = "not an rl dataset" if path in (other, missing) else "not a readable .npz dataset"
        assert f"{path}: {what} ({problem}" in err, err
        assert "python -m rl collect ENV -o FILE.npz" in err
        assert "allow_pickle" not in err
        with pytest.raises(ValueError, match=what) as caught:
            datasets.load(path)  # the library says the same
        assert "allow_pickle" not in str(caught.value)
    table = tmp_path / "pickled_table.npz"
    np.savez(table, format=np.array([None], dtype=object))
    err = _error(capsys, ["evaluate", str(table)])
    assert "pickled Python objects" in err and "allow_pickle" not in err


@pytest.mark.parametrize("command", ["demo", "collect", "train", "evaluate", "quality"])
def test_help_shows_the_defaults(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines anywhere
    wanted = {
        "demo": ["(default: FrozenLake-v1)", "(default: 1000000)", "(default: 64)"],
        "collect": ["(default: 1000000)", "(default: 0)"],
        "train": ["(default: qlearning)", "(default: fp32)", "(default: 40)", "(default: 0.1)"],
        "evaluate": ["(default: 1000)", "(default: 0)"],
        "quality": ["(default: 1000000)", "(default: block)", "(default: 16)"],
    }[command]
    for text in wanted:
        assert text in out, f"{command} --help lacks {text}"
    assert "(default: None)" not in out and "(default: False)" not in out
