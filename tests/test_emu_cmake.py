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


def _configure_dpu_project(tmp_path: Path, *args: str) -> tuple[dict[str, str], str]:
    """Configure and build a one-file DPU project with the layout's dpu.cmake; returns its
    CMake cache (name to value) and the verbose build's output."""
    cmake = _cmake()
    source = tmp_path / "src"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16...4.0)\nproject(k C)\nadd_executable(k k.c)\n"
    )
    (source / "k.c").write_text(
        "#include <defs.h>\n__host unsigned tasklets = NR_TASKLETS;\nint main(void) { return 0; }\n"
    )
    build = tmp_path / "build"
    toolchain = emulator().upmem_home / "share" / "upmem" / "cmake" / "dpu.cmake"
    configure = subprocess.run(
        [cmake, "-S", str(source), "-B", str(build), f"-DCMAKE_TOOLCHAIN_FILE={toolchain}", *args],
        capture_output=True,
        text=True,
    )
    assert configure.returncode == 0, configure.stdout + configure.stderr
    built = subprocess.run(
        [cmake, "--build", str(build), "--verbose"], capture_output=True, text=True
    )
    assert built.returncode == 0, built.stdout + built.stderr
    cache = {}
    for line in (build / "CMakeCache.txt").read_text().splitlines():
        if ":" in line and "=" in line and not line.startswith(("#", "//")):
            key, value = line.split("=", 1)
            cache[key.split(":")[0]] = value
    return cache, built.stdout


def test_dpu_toolchain_caches_no_nr_tasklets_and_builds_with_the_sdks_flags(tmp_path):
    cache, output = _configure_dpu_project(tmp_path)
    assert "NR_TASKLETS" not in cache  # the SDK's dpu.cmake declares none
    if not Path("/sys/class/dpu_rank/dpu_rank0/dpu_chip_id").exists():
        assert cache["CMAKE_C_FLAGS"] == "-mcpu=v1A -g"  # the SDK's default chip: v1A
    assert "-mcpu=" in output and " -g " in f"{output} "


def test_dpu_toolchain_takes_a_projects_chip_version(tmp_path):
    cache, output = _configure_dpu_project(tmp_path, "-DCHIP_VERSION=v1B")
    assert cache["CMAKE_C_FLAGS"] == "-mcpu=v1B -g"
    assert "-mcpu=v1B" in output


def test_dpu_host_cmake_sets_the_sdks_variables(tmp_path):
    script = tmp_path / "print.cmake"
    host = emulator().upmem_home / "share" / "upmem" / "cmake" / "include" / "host"
    names = [
        "DPU_HOST_PACKAGE_DIR",
        "DPU_HOST_LIBRARIES",
        "DPU_HOST_INCLUDE_DIRECTORIES",
        "DPU_HOST_LINK_DIRECTORIES",
    ]
    script.write_text(
        f'include("{host / "DpuHost.cmake"}")\n'
        + "".join(f'message("{name}=${{{name}}}")\n' for name in names)
    )
    result = subprocess.run([_cmake(), "-P", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    values = dict(line.split("=", 1) for line in result.stderr.splitlines() if "=" in line)
    home = emulator().upmem_home
    assert Path(values["DPU_HOST_PACKAGE_DIR"]) == home
    assert values["DPU_HOST_LIBRARIES"] == "dpu"
    assert Path(values["DPU_HOST_INCLUDE_DIRECTORIES"]) == home / "include" / "dpu"
    assert (Path(values["DPU_HOST_INCLUDE_DIRECTORIES"]) / "dpu.h").is_file()
    assert (Path(values["DPU_HOST_LINK_DIRECTORIES"]) / "libdpu.so").exists()
