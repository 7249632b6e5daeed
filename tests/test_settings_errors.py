"""A setting the emulator refuses is named with its bad value and the values it accepts,
for a Python user (in the exception) and for a C host program (on stderr); an unknown
profile key is refused, while every key UPMEM's SDK documents stays accepted."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from emu_support import build_host, run

import pyupmem as pim

CASES = [
    ({"PYUPMEM_EMU_NR_RANKS": "0"}, {}, "PYUPMEM_EMU_NR_RANKS=0", "from 1 to 4096"),
    ({"PYUPMEM_EMU_NR_RANKS": "abc"}, {}, "PYUPMEM_EMU_NR_RANKS=abc", "from 1 to 4096"),
    ({"PYUPMEM_EMU_NR_RANKS": "100000"}, {}, "PYUPMEM_EMU_NR_RANKS=100000", "from 1 to 4096"),
    ({"PYUPMEM_EMU_STRICT": "maybe"}, {}, "PYUPMEM_EMU_STRICT=maybe", "0, false or no"),
    ({"PYUPMEM_EMU_SCHEDULE": "bogus"}, {}, "PYUPMEM_EMU_SCHEDULE=bogus", "shuffle:SEED"),
    ({}, {"schedule": "bogus"}, "emuSchedule=bogus", "DpuSet's schedule="),
    ({}, {"strict": "maybe"}, "emuStrict=maybe", "DpuSet's strict="),
    ({}, {"profile": "noSuchKey=1"}, "noSuchKey", "is unknown"),
    ({}, {"profile": "nrRanks"}, "'nrRanks' is not key=value", "separated by commas"),
]


def _allocate(env: dict[str, str], kwargs: dict[str, str]) -> subprocess.CompletedProcess:
    code = (
        "import pyupmem as pim\n"
        f"try:\n    pim.DpuSet(4, **{kwargs!r})\n"
        "except pim.DpuProfileError as error:\n    print(error)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True
    )


@pytest.mark.parametrize("env, kwargs, setting, accepted", CASES)
def test_a_refused_setting_is_named_for_python(env, kwargs, setting, accepted) -> None:
    result = _allocate(env, kwargs)
    assert result.returncode == 0, result.stderr
    assert "DPU_ERR_INVALID_PROFILE" in result.stdout
    assert setting in result.stdout and accepted in result.stdout, result.stdout
    assert result.stderr == ""  # said once, in the exception


@pytest.mark.parametrize("env, profile, setting", [
    ({"PYUPMEM_EMU_NR_RANKS": "0"}, "", "PYUPMEM_EMU_NR_RANKS=0"),
    ({"PYUPMEM_EMU_STRICT": "maybe"}, "", "PYUPMEM_EMU_STRICT=maybe"),
    ({}, "emuSchedule=bogus", "emuSchedule=bogus"),
    ({}, "noSuchKey=1", "noSuchKey"),
])
def test_a_refused_setting_is_named_for_c_host_programs(env, profile, setting) -> None:
    result = run([build_host("alloc_profile.c"), profile], **env)
    assert "status=28" in result.stdout  # DPU_ERR_INVALID_PROFILE, as before
    assert "invalid profile" in result.stderr and setting in result.stderr, result.stderr


def test_the_keys_the_sdk_documents_stay_accepted() -> None:
    hardware = "backend=hw,chipId=4,regionMode=perf,rankPath=/dev/dpu_rank0,ignoreVersion=1"
    simulator = "backend=simulator,cycleAccurate=true,nrDpusPerCi=8,mramSize=67108864"
    runtime = "nrThreadsPerRank=4,nrJobsPerRank=256,dispatchOnAllRanks=true,disableSafeChecks=1"
    spaced = "sgXferEnable=true, sgXferMaxBlocksPerDpu=32"  # as the SDK's examples write it
    for profile in (hardware, simulator, runtime, spaced):
        with pim.DpuSet(1, profile=profile) as dpus:
            assert len(dpus) == 1
    result = run([build_host("alloc_profile.c"), hardware])
    assert "status=0" in result.stdout and result.stderr == ""
