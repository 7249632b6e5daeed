"""DMA as the hardware does it (UPMEM_ABI.md section 4): a request that breaks a documented
rule moves what the DMA engine moves (whole 8-byte units, a wrapping length, the low
address bits ignored, only the MRAM offset bits used) and warns once per source line;
strict mode (PYUPMEM_EMU_STRICT=1 or the profile key emuStrict=true) faults instead.
An access past the end of physical MRAM faults in both modes."""

import re

import pytest
from emu_support import PROGRAMS, build_dpu, build_host, run

DPU_ERR_DPU_FAULT = 23


def source_line(mode: int) -> int:
    for number, line in enumerate((PROGRAMS / "dma_rules.c").read_text().splitlines(), 1):
        if line.strip().startswith(f"case {mode}:"):
            return number
    raise AssertionError(mode)


def run_mode(mode: int, launches: int = 1, profile: str = "", **env: str):
    dpu = build_dpu("dma_rules.c", "-g", "-DNR_TASKLETS=4")
    # PYUPMEM_EMU_QUIET="" lets warnings through (run() sets it to silence fault noise).
    return run(
        [build_host("run_dma_rules.c"), dpu, mode, launches, profile], PYUPMEM_EMU_QUIET="", **env
    )


def warnings_of(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "warning:" in line]


# mode: (bytes the DMA wrote into `out`, its first 8 bytes, MRAM at heap offset 0x200, rule)
HARDWARE = {
    1: (8, "0001020304050607", "00010203", "size 12 is not a multiple of 8 in 8..2048 bytes"),
    2: (2048, "0001020304050607", "00010203", "size 1 is not a multiple of 8 in 8..2048 bytes"),
    3: (2048, "0001020304050607", "00010203", "size 4096 is not a multiple of 8 in 8..2048 bytes"),
    4: (8, "0001020304050607", "00010203", "size 2056 is not a multiple of 8 in 8..2048 bytes"),
    5: (16, "0001020304050607", "00010203", "is not 8-byte aligned"),
    6: (16, "0001020304050607", "00010203", "WRAM address"),
    7: (16, "08090a0b0c0d0e0f", "00010203", "is outside MRAM [0x08000000, 0x0c000000)"),
    8: (0, "eeeeeeeeeeeeeeee", "eeeeeeee", "is outside MRAM [0x08000000, 0x0c000000)"),
}


def test_by_the_rules_no_warning():
    result = run_mode(0)
    assert "launch=0" in result.stdout
    assert result.stdout.count("moved=16 first=0001020304050607 at200=00010203") == 2
    assert warnings_of(result.stderr) == []


@pytest.mark.parametrize("mode", sorted(HARDWARE))
def test_broken_rule_gives_hardware_result_and_one_warning(mode):
    moved, first, at200, rule = HARDWARE[mode]
    # Two DPUs, three launches: still a single warning for the line.
    result = run_mode(mode, launches=3)
    assert "launch=0" in result.stdout, result.stdout + result.stderr
    assert result.stdout.count(f"moved={moved} first={first} at200={at200}") == 2, result.stdout
    (warning,) = warnings_of(result.stderr)
    assert rule in warning
    assert f"(tasklet 0, in main() at {PROGRAMS / 'dma_rules.c'}:{source_line(mode)})" in warning
    assert "PYUPMEM_EMU_STRICT=1" in warning


@pytest.mark.parametrize("mode", sorted(HARDWARE))
@pytest.mark.parametrize("how", ["env", "profile"])
def test_strict_mode_faults_with_rule_and_line(mode, how):
    env = {"PYUPMEM_EMU_STRICT": "1"} if how == "env" else {}
    profile = "emuStrict=true" if how == "profile" else ""
    result = run_mode(mode, profile=profile, **env)
    assert f"launch={DPU_ERR_DPU_FAULT}" in result.stdout
    fault = next(line for line in result.stdout.splitlines() if line.startswith("DPU fault: "))
    assert HARDWARE[mode][3] in fault
    assert re.search(rf"tasklet 0, .*dma_rules\.c:{source_line(mode)}\)", fault), fault
    assert warnings_of(result.stderr) == []


def test_profile_turns_strict_mode_off_again():
    result = run_mode(1, profile="emuStrict=false", PYUPMEM_EMU_STRICT="1")
    assert "launch=0" in result.stdout


def test_past_the_end_of_mram_faults_in_both_modes():
    for env in ({}, {"PYUPMEM_EMU_STRICT": "1"}):
        result = run_mode(9, **env)
        assert f"launch={DPU_ERR_DPU_FAULT}" in result.stdout
        assert "runs past the end of the 64 MiB MRAM" in result.stdout or (
            "outside MRAM" in result.stdout and env
        )


def test_mram_pointer_made_from_an_offset_dereferences_like_hardware():
    """Only the low 26 bits of an MRAM address count: a program without __mram variables
    has its heap at MRAM offset 0, and `(__mram_ptr T *)offset` reaches it directly."""
    import numpy as np

    import pyupmem as pim

    program = pim.build_program(
        """
        #include <defs.h>
        #include <stdint.h>
        __host uint64_t seen;
        int main(void)
        {
            if (me() == 0) {
                __mram_ptr uint64_t *at = (__mram_ptr uint64_t *)(uintptr_t)0x20000;
                seen = at[1];      /* read through the offset */
                at[2] = seen + 1;  /* and write */
            }
            return 0;
        }
        """,
        nr_tasklets=2,
        name="offset_pointer",
        backend="emulator",
    )
    with pim.DpuSet(2, backend="emulator") as dpus:
        dpus.load(program)
        heap = "__sys_used_mram_end"
        dpus.scatter(heap, np.array([[0, 41, 0], [0, 99, 0]], np.uint64), offset=0x20000)
        dpus.launch()
        assert np.ravel(dpus.gather("seen", np.uint64, 1)).tolist() == [41, 99]
        after = dpus.gather(heap, np.uint64, 3, offset=0x20000)
        assert after[:, 2].tolist() == [42, 100]


def test_one_warning_per_line_for_the_whole_process(tmp_path):
    """Several DPU sets in one process, one after the other: still one warning per line."""
    import os
    import subprocess
    import sys

    script = tmp_path / "twice.py"
    script.write_text(
        "import numpy as np, pyupmem as pim, sys\n"
        "for _ in range(3):\n"
        "    with pim.DpuSet(2, backend='emulator') as dpus:\n"
        "        dpus.load(sys.argv[1])\n"
        "        dpus.write('mode', np.uint32(1))\n"
        "        dpus.launch()\n"
    )
    dpu = build_dpu("dma_rules.c", "-g", "-DNR_TASKLETS=4")
    env = {**os.environ, "PYUPMEM_EMU_QUIET": ""}
    done = subprocess.run(
        [sys.executable, str(script), str(dpu)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert len(warnings_of(done.stderr)) == 1, done.stderr
