"""Scripts written for the UPMEM SDK's Python module `dpu` run unchanged on the emulator
after `eval "$(python -m pyupmem env)"`, and `env` leaves `dpu` to the SDK when the SDK is
the selected backend."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
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
    assert result.stdout.split() == ["pyupmem.sdk_compat.driver", "emulator"]


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


def test_a_failed_compile_raises_calledprocesserror_as_the_sdks():
    from pyupmem.sdk_compat import DpuError, DpuSet

    with pytest.raises(subprocess.CalledProcessError) as raised:
        DpuSet(nr_dpus=1, c_source="int main(void) { return undeclared_name; }\n")
    assert not isinstance(raised.value, DpuError)
    assert raised.value.returncode != 0
    assert "undeclared_name" in raised.value.stderr


def test_the_package_is_laid_out_as_the_sdks_module():
    import pyupmem.sdk_compat as compat

    files = sorted(path.name for path in Path(compat.__file__).parent.glob("*.py"))
    assert files == sorted(["__init__.py", *(f"{name}.py" for name in compat.SUBMODULES)])
    # the SDK's dpu/__init__.py re-exports these from dpu.driver
    for name in ("ALLOCATE_ALL", "DpuContext", "DpuError", "DpuSet", "DpuSymbol"):
        assert getattr(compat, name) is getattr(compat.driver, name)


def test_submodules_import_under_the_sdks_names_after_env():
    result = _run_after_env(
        f'"{sys.executable}" -c "import dpu, dpu.driver, dpu.compiler, dpu.ffi, sys; '
        "import pyupmem.sdk_compat.driver as d; "
        "print(dpu.driver is d, dpu.DpuSet is d.DpuSet, "
        "sys.modules['dpu.compiler'].O2, callable(dpu.ffi.Py_dpu_log_read))\""
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "-O2", "True"]


def test_compiler_passes_the_sdks_flags(tmp_path, monkeypatch):
    from pyupmem.sdk_compat import compiler

    monkeypatch.delenv("DPU_ARCH_VERSION", raising=False)
    if not Path("/sys/class/dpu_rank/dpu_rank0/dpu_chip_id").exists():
        assert compiler.getDpuArchVersion("dpu-upmem-dpurte") == "v1A"
    assert compiler.getDpuArchVersion("x86_64-linux-gnu") is None
    monkeypatch.setenv("DPU_ARCH_VERSION", "v1B")
    source = tmp_path / "k.c"
    source.write_text("#include <defs.h>\nint main(void) { return NR_TASKLETS - 3; }\n")
    done = compiler.DEFAULT_DPU_COMPILER.compile(
        str(source), output=str(tmp_path / "k"), defines={"NR_TASKLETS": 3}, opt_lvl=compiler.O1
    )
    assert done.args[1:] == [
        "--target=dpu-upmem-dpurte",
        "-mcpu=v1B",
        "-O1",
        "-g",
        "-D",
        "NR_TASKLETS=3",
        str(source),
        "-o",
        str(tmp_path / "k"),
    ]
    assert (tmp_path / "k").is_file()
    with pytest.raises(subprocess.CalledProcessError):
        compiler.DEFAULT_DPU_COMPILER.compile(str(tmp_path / "missing.c"))
