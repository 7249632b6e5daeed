"""Command lines that used to crash or lose work: each now stops at once with one line
naming the problem and the fix (exit status 2), or does the work (pimopt train without
--test), or ends quietly (a closed pipe, Ctrl-C)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pimopt import data
from pimopt.__main__ import main as pimopt_main

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYUPMEM_EMU_QUIET="1")
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300, **kwargs)


def _one_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), result.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("misuse")
    assert pimopt_main(["generate", str(folder), "--samples", "200", "--features", "6"]) == 0
    return folder


# --- rl map ---------------------------------------------------------------------------


def test_rl_map_refuses_a_layer_larger_than_the_memory() -> None:
    _one_error(_run("-m", "rl", "map", "mlp", "--rows", "1000000000"),
               "1,000,000,000 x 1,024 int8 layer", "GiB", "use fewer --rows")


@pytest.mark.parametrize("option", ["--json", "--plot"])
def test_rl_map_checks_its_output_folder_before_the_search(tmp_path: Path, option) -> None:
    result = _run("-m", "rl", "map", "mlp", "--budget", "2", option,
                  str(tmp_path / "missing" / "out"))
    _one_error(result, f"{option} ", "does not exist")
    assert result.stdout == ""  # nothing searched


def test_rl_map_help_shows_no_empty_defaults() -> None:
    text = _run("-m", "rl", "map", "--help").stdout
    assert "(default: None)" not in text
    assert "(default: marl)" in text and "the agent's seed (default: 0)" in text


# --- pimopt's data ----------------------------------------------------------------------


def test_a_huge_feature_index_is_one_error(tmp_path: Path) -> None:
    # As many lines as make the dense matrix exceed half of this machine's memory.
    index = 99_999_999
    lines = data.memory_bytes() // (2 * 4 * index) + 2
    path = tmp_path / "wide.libsvm"
    path.write_text(f"1 1:0.5 {index}:1\n" + "-1 2:1\n" * (lines - 1))
    _one_error(_run("-m", "pimopt", "train", str(path)),
               f"{path}, line 1: feature index {index} ", "GiB")


def test_a_binary_libsvm_file_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "binary.libsvm"
    path.write_bytes(b"1 1:0.5\n-1 2:1\n\x7fELF\xd0\x00\xff\n")
    _one_error(_run("-m", "pimopt", "train", str(path)), f"{path}, line 3: not text")


# --- pimopt generate --------------------------------------------------------------------


def test_generate_makes_a_missing_folder_and_keeps_what_is_there(tmp_path: Path) -> None:
    out = tmp_path / "new" / "set"
    args = ["-m", "pimopt", "generate", str(out), "--samples", "40", "--features", "3"]
    assert _run(*args).returncode == 0
    written = (out / "train.libsvm").read_text()
    _one_error(_run(*args, "--seed", "1"), "already exist", "--force")
    assert (out / "train.libsvm").read_text() == written  # not overwritten
    assert _run(*args, "--seed", "1", "--force").returncode == 0
    assert (out / "train.libsvm").read_text() != written


@pytest.mark.parametrize(("option", "words"), [
    (["--samples", "-5"], ["--samples must be at least 2", "-5"]),
    (["--samples", "0"], ["--samples must be at least 2"]),
    (["--features", "0"], ["--features must be at least 1"]),
    (["--samples", "100000000", "--features", "1000000"], ["GiB", "fewer samples"]),
])
def test_generate_refuses_sizes_it_cannot_write(tmp_path: Path, option, words) -> None:
    _one_error(_run("-m", "pimopt", "generate", str(tmp_path / "out"), *option), *words)
    assert not (tmp_path / "out").exists()


# --- pimopt train -----------------------------------------------------------------------


def test_train_with_more_dpus_than_the_system_is_one_error(files: Path) -> None:
    _one_error(_run("-m", "pimopt", "train", str(files / "train.libsvm"), "--dpus", "100000",
                    "--no-progress"), "asked for 100000 DPUs", "PYUPMEM_EMU_NR_RANKS")


def test_train_without_a_test_set_rates_the_training_set(files: Path, tmp_path: Path) -> None:
    out = tmp_path / "model.json"
    result = _run("-m", "pimopt", "train", str(files / "train.libsvm"), "--epochs", "2",
                  "--no-progress", "--json", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("training-set accuracy (no --test")
    assert '"evaluated_on": "train"' in out.read_text()


def test_pimopt_help_is_plain_text_with_option_help() -> None:
    top = _run("-m", "pimopt", "--help").stdout
    assert "``" not in top and ":mod:" not in top and "Distributed optimisation" in top
    train = _run("-m", "pimopt", "train", "--help").stdout
    assert "initial learning rate (default: 0.1)" in train
    assert "--model {lr,svm}" in train and "(default: lr)" in train
    assert "(default: None)" not in train


# --- pyupmem and rl: pipes and Ctrl-C ------------------------------------------------------


def test_cache_info_into_a_closed_pipe_is_quiet() -> None:
    read, write = os.pipe()
    os.close(read)  # like '| head' that has gone: every write fails with EPIPE
    try:
        result = subprocess.run([sys.executable, "-m", "pyupmem", "cache", "info"], cwd=ROOT,
                                stdout=write, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_ctrl_c_in_the_rl_demo_is_one_line_and_status_130() -> None:
    env = dict(os.environ, PYUPMEM_EMU_QUIET="1", PYTHONUNBUFFERED="1")
    # A job started in the background (as CI's may be) inherits SIGINT ignored, and Python
    # then leaves it ignored: the child gets the terminal's default, as a user's shell gives.
    proc = subprocess.Popen([sys.executable, "-m", "rl", "demo"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline().startswith("rl demo:")  # started: the event we wait on
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip() == "python -m rl demo: interrupted"
