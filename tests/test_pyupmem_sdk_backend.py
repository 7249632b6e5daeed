"""On the SDK backend, messages name the real cause (no DPU hardware and no simulator, not
"free other sets"), and `python -m pyupmem env` leaves the SDK's own tools first on PATH.
The SDK is faked: a temporary UPMEM_HOME with a stub lib/libdpu.so that has no DPU to give,
and stub tools in bin/."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pyupmem import DpuSet
from pyupmem.driver import libdpu as C
from pyupmem.driver.backend import DPU_DEVICES, find_backend
from pyupmem.errors import DpuAllocationError

STUB = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
struct dpu_set_t { uint32_t kind; uint32_t a; uint64_t b; };
int dpu_alloc(uint32_t n, const char *profile, struct dpu_set_t *set)
{ (void)n; (void)profile; memset(set, 0, sizeof(*set)); return 4; }
int dpu_alloc_ranks(uint32_t n, const char *profile, struct dpu_set_t *set)
{ return dpu_alloc(n, profile, set); }
int dpu_free(struct dpu_set_t set) { (void)set; return 0; }
char *dpu_error_to_string(int status)
{ return strdup(status == 4 ? "%(message)s" : "other"); }
"""


@pytest.fixture(scope="module")
def fake_sdk(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("upmem_home")
    (home / "lib").mkdir()
    (home / "bin").mkdir()
    source = home / "stub.c"
    source.write_text(STUB % {"message": C.ERROR_MESSAGES[C.DPU_ERR_ALLOCATION]})
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-o", str(home / "lib" / "libdpu.so"), str(source)],
        check=True,
    )
    for tool in ("dpu-upmem-dpurte-clang", "dpu-pkg-config"):
        script = home / "bin" / tool
        script.write_text("#!/bin/sh\necho the-sdks-own\n")
        script.chmod(0o755)
    return home


@pytest.fixture()
def no_hardware():
    if glob.glob(DPU_DEVICES):
        pytest.skip("this machine has DPU hardware")


def test_no_dpus_on_the_sdk_says_no_hardware_and_no_simulator(fake_sdk, no_hardware):
    backend = find_backend("sdk", fake_sdk / "lib" / "libdpu.so")
    with pytest.raises(DpuAllocationError) as caught:
        DpuSet(1, backend=backend)
    text = str(caught.value)
    assert "this machine has no DPU hardware" in text
    assert "backend=simulator" in text and "PYUPMEM_BACKEND=emulator" in text
    assert "free other sets" not in text


def test_a_simulator_that_gives_nothing_is_named(fake_sdk):
    backend = find_backend("sdk", fake_sdk / "lib" / "libdpu.so")
    with pytest.raises(DpuAllocationError) as caught:
        DpuSet(1, backend=backend, profile="backend=simulator")
    assert "the SDK's simulator gave no DPU" in str(caught.value)
    assert "free other sets" not in str(caught.value)


def test_ranks_that_exist_but_are_taken_say_so(fake_sdk, tmp_path):
    (tmp_path / "dpu_rank0").touch()
    backend = find_backend("sdk", fake_sdk / "lib" / "libdpu.so")
    hint = backend.allocation_hint("", devices=str(tmp_path / "dpu_rank*"))
    assert "1 DPU ranks are on this machine and none is free now" in hint
    assert "free other sets" in hint


def test_env_leaves_the_sdks_tools_first_on_path(fake_sdk):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYUPMEM_BACKEND", "PYUPMEM_LIBDPU", "PYTHONPATH")
    }
    env.update(UPMEM_HOME=str(fake_sdk), PYUPMEM_EMU_QUIET="1")
    script = (
        f'eval "$("{sys.executable}" -m pyupmem env)" && '
        "dpu-upmem-dpurte-clang && dpu-pkg-config && command -v dpu-upmem-dpurte-clang && "
        'echo "home=$UPMEM_HOME"'
    )
    result = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split()
    assert lines[:2] == ["the-sdks-own", "the-sdks-own"]
    assert lines[2] == str(fake_sdk.resolve() / "bin" / "dpu-upmem-dpurte-clang")
    assert lines[3] == f"home={fake_sdk}"
    assert "its own dpu-upmem-dpurte-clang and dpu-pkg-config come first" in result.stderr


def test_env_with_the_emulator_selected_still_puts_its_tools_first(fake_sdk):
    env = {k: v for k, v in os.environ.items() if k not in ("PYUPMEM_LIBDPU", "PYTHONPATH")}
    env.update(UPMEM_HOME=str(fake_sdk), PYUPMEM_BACKEND="emulator")
    result = subprocess.run(
        [sys.executable, "-m", "pyupmem", "env"], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    path_line = result.stdout.splitlines()[0]
    assert path_line.startswith('export PATH="') and path_line.endswith(':$PATH"')
    assert str(fake_sdk) not in path_line
