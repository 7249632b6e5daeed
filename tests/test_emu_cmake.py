"""`python -m pyupmem env` sets UPMEM_HOME to a folder with the SDK's layout, so that a
CMake project written for the SDK (DpuHost.cmake on the host side, the toolchain file
share/upmem/cmake/dpu.cmake on the DPU side) configures, builds and runs unchanged."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from emu_support import PROGRAMS, emulator


def _cmake() -> str:
    """cmake from PATH, else the one the `test` extras install into the virtual environment."""
    found = shutil.which("cmake") or shutil.which("cmake", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("cmake is not installed: pip install -e '.[test]' installs it")
    return found


def test_sdk_layout_links_into_the_build():
    emu = emulator()
    home = emu.upmem_home
    for tool in ("dpu-upmem-dpurte-clang", "dpu-pkg-config", "clang", "clang++", "llvm-ar"):
        assert os.access(home / "bin" / tool, os.X_OK), tool
    assert (home / "lib" / "libdpu.so").resolve() == emu.libdpu.resolve()
    assert (home / "include" / "dpu" / "dpu.h").is_file()
    assert (home / "share" / "upmem" / "include" / "mram.h").is_file()
    assert (home / "share" / "upmem" / "cmake" / "dpu.cmake").is_file()
    assert (home / "share" / "upmem" / "cmake" / "include" / "host" / "DpuHost.cmake").is_file()


def test_clang_rejects_a_host_target(tmp_path):
    source = tmp_path / "k.c"
    source.write_text("int main(void) { return 0; }\n")
    clang = emulator().upmem_home / "bin" / "clang"
    result = subprocess.run(
        [str(clang), "--target=x86_64-linux-gnu", "-c", str(source), "-o", str(tmp_path / "k.o")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "unsupported target 'x86_64-linux-gnu'" in result.stderr
    result = subprocess.run(
        [str(clang), "-target", "dpu-upmem-dpurte", "-O2", str(source), "-o", str(tmp_path / "k")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_cmake_project_builds_and_runs_unchanged(tmp_path):
    cmake = _cmake()
    build = tmp_path / "build"
    env = {k: v for k, v in os.environ.items() if k not in ("UPMEM_HOME", "PYUPMEM_BACKEND")}
    env["PYUPMEM_EMU_QUIET"] = "1"
    script = (
        f'eval "$("{sys.executable}" -m pyupmem env)" && '
        f'"{cmake}" -S "{PROGRAMS / "cmake_project"}" -B "{build}" '
        "-DNR_DPUS=32 -DNR_TASKLETS=12 && "
        f'"{cmake}" --build "{build}" && "{build / "host_app"}"'
    )
    result = subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=600
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "warning" not in output.lower()
    assert "=== DPU#0x0 ===" in result.stdout
    assert "4096 values, 12 tasklets" in result.stdout
    assert "[OK] histogram of 131072 values on 32 DPUs" in result.stdout
