"""`eval "$(python -m pyupmem env)"` puts a toolchain on PATH with which a Makefile written
for the SDK builds and runs unchanged."""

import os
import shutil
import subprocess
import sys

import pytest
from emu_support import PROGRAMS, emulator, toolchain_env


def test_sdk_makefile_builds_and_runs_unchanged(tmp_path):
    project = tmp_path / "checksum"
    shutil.copytree(PROGRAMS / "sdk_project", project)
    script = f'eval "$("{sys.executable}" -m pyupmem env)" && make -s test NR_DPUS=64'
    env = {k: v for k, v in os.environ.items() if k not in ("UPMEM_EMU_HOME",)}
    result = subprocess.run(
        ["bash", "-c", script], cwd=project, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in result.stderr.lower()
    assert "=== DPU#0x0 ===" in result.stdout
    assert "[OK] checksums on 64 DPUs" in result.stdout


def test_env_prints_shell_lines_only():
    result = subprocess.run(
        [sys.executable, "-m", "pyupmem", "env"], capture_output=True, text=True, check=True
    )
    lines = result.stdout.strip().splitlines()
    assert lines and all(line.startswith("export ") for line in lines)


def test_pkg_config_rejects_unknown_flags():
    result = subprocess.run(
        [
            "bash",
            "-c",
            f'eval "$("{sys.executable}" -m pyupmem env)" && dpu-pkg-config --frobnicate dpu',
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "unsupported argument '--frobnicate'" in result.stderr


@pytest.mark.skipif(shutil.which("g++") is None, reason="no C++ compiler (g++) on this machine")
def test_cxx_dpu_program_uses_the_runtime(tmp_path):
    import numpy as np

    import pyupmem as pim

    binary = tmp_path / "cxx_kernel"
    compiler = emulator().upmem_home / "bin" / "clang++"
    subprocess.run(
        [
            str(compiler),
            "-O2",
            "-DNR_TASKLETS=4",
            "-o",
            str(binary),
            str(PROGRAMS / "cxx_kernel.cpp"),
        ],
        check=True,
        env=toolchain_env(),
    )
    with pim.DpuSet(2, backend="emulator") as dpus:
        dpus.load(binary)
        dpus.launch()
        assert np.ravel(dpus.gather("total", np.uint32, 1)).tolist() == [4, 4]
