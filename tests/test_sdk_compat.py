"""Scripts written for the UPMEM SDK's Python module `dpu` run unchanged on the emulator
after `eval "$(python -m pyupmem env)"`, and `env` leaves `dpu` to the SDK when the SDK is
the selected backend."""

from __future__ import annotations

import os
import subprocess
import sys

from emu_support import PROGRAMS


def _run_after_env(command: str, **extra: str) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYUPMEM_BACKEND", "PYUPMEM_LIBDPU", "UPMEM_HOME", "PYTHONPATH")
    }
    env.update(PYUPMEM_EMU_QUIET="1", **extra)
    script = f'eval "$("{sys.executable}" -m pyupmem env)" && {command}'
    return subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=300
    )


def test_sdk_python_script_runs_unchanged(tmp_path):
    result = _run_after_env(f'"{sys.executable}" "{PROGRAMS / "sdk_python_host.py"}"')
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FAILED" not in result.stdout
    assert result.stdout.count("check ") >= 30
    assert "all checks passed" in result.stdout


def test_dpu_module_is_pyupmems_after_env():
    result = _run_after_env(
        f'"{sys.executable}" -c "import dpu, pyupmem; '
        'print(dpu.DpuSet.__module__, pyupmem.find_backend().kind)"'
    )
    assert result.returncode == 0, result.stderr
    # UPMEM_HOME now points at the emulator's SDK layout: still the emulator, not "sdk".
    assert result.stdout.split() == ["pyupmem.sdk_compat", "emulator"]


def test_env_leaves_upmem_home_and_dpu_to_a_selected_sdk():
    result = _run_after_env(
        'echo "home=${UPMEM_HOME:-} path=${PYTHONPATH:-}"', PYUPMEM_BACKEND="sdk"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "home= path="
    assert "UPMEM's SDK is the selected backend" in result.stderr


def test_errors_are_dpu_errors_without_env():
    from pyupmem.sdk_compat import DpuError, DpuSet

    try:
        DpuSet(nr_dpus=1, nr_ranks=1)
    except DpuError as error:
        assert "nr_dpus and nr_ranks" in str(error)
    else:
        raise AssertionError("no DpuError")
    with DpuSet(nr_dpus=2) as dpus:
        try:
            dpus.exec()
        except DpuError as error:
            assert error.code is not None and "NO_PROGRAM_LOADED" in str(error)
        else:
            raise AssertionError("no DpuError")
