"""The examples of docs/examples give numpy's results on 1, 64 and 640 DPUs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import pyupmem as pim

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
NAMES = ("vecadd", "reduction", "histogram", "checksum")


def load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module", params=[1, 64, 640], ids=lambda n: f"{n}dpus")
def dpus(request: pytest.FixtureRequest):
    with pim.DpuSet(request.param) as dpus:
        yield dpus


@pytest.mark.parametrize("name", NAMES)
def test_example_matches_numpy(dpus: pim.DpuSet, name: str) -> None:
    example = load_example(name)
    # An uneven size, so that the last DPUs get padding (or less data).
    size = 1531 * len(dpus) + 77 if name != "checksum" else 4099 * len(dpus) + 5
    result, expected = example.run(dpus, size, seed=len(dpus))
    if isinstance(expected, np.ndarray):
        assert np.array_equal(result, expected)
    else:
        assert result == expected


@pytest.mark.parametrize("tasklets", [1, 3, 24])
def test_examples_with_other_tasklet_counts(tasklets: int) -> None:
    with pim.DpuSet(3) as dpus:
        for name in NAMES:
            example = load_example(name)
            result, expected = example.run(dpus, 10_007, nr_tasklets=tasklets)
            assert np.array_equal(np.asarray(result), np.asarray(expected)), (name, tasklets)


@pytest.mark.parametrize("name", NAMES)
def test_example_main(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    example = load_example(name)
    size_flag = "--bytes" if name == "checksum" else "--elements"
    assert example.main(["--dpus", "5", size_flag, "20000"]) == 0
    assert "OK" in capsys.readouterr().out


def test_example_script_runs() -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "checksum.py"),
            "--dpus",
            "2",
            "--bytes",
            "999",
            "--print-logs",
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "=== DPU#0x1 ===" in result.stdout and result.stdout.rstrip().endswith("OK")
