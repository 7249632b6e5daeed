"""A DPU program that breaks a DPU rule or crashes faults that DPU only: the launch returns
DPU_ERR_DPU_FAULT (23), the log names the rule, the tasklet and the line, the other DPU and
the host carry on, and loading again makes the set usable. The DMA rules (modes 1, 2, 3, 7)
fault only in strict mode, which these tests use throughout; the default mode's hardware
behaviour is tested in test_emu_dma_rules.py."""

import re
import subprocess

import pytest
from emu_support import PROGRAMS, build_dpu, build_host, run, toolchain_env

DPU_ERR_DPU_FAULT = 23


def line_of(marker: str) -> int:
    for number, line in enumerate((PROGRAMS / "faults.c").read_text().splitlines(), 1):
        if marker in line:
            return number
    raise AssertionError(marker)


CASES = {
    1: ("mram_read: size 12 is not a multiple of 8 in 8..2048 bytes", "size not x8"),
    2: ("mram_read: MRAM address 0x8000004 is not 8-byte aligned", "unaligned"),
    3: ("is outside MRAM [0x08000000, 0x0c000000)", "beyond 64 MiB"),
    4: ("mem_alloc(70000): WRAM exhausted", "WRAM exhausted"),
    # strict mode: a stray pointer (a DPU WRAM address) faults instead of reaching WRAM
    5: (
        "a load or store through a stray pointer (address 0x0010): on a DPU this is a WRAM "
        "access at 0x0010 (tasklet 2, in main() at faults.c:",
        "/* bad pointer */",
    ),
    6: ("abort() called (SIGABRT) in main() at faults.c:", None),
    7: ("mram_write: size 4096 is not a multiple of 8 in 8..2048 bytes", "size > 2048"),
    8: ("deadlock: every live tasklet waits forever (tasklet 2 in barrier_wait)", None),
    10: ("stack overflow", None),
}


@pytest.mark.parametrize("mode", sorted(CASES))
def test_fault_is_reported_and_contained(mode):
    message, marker = CASES[mode]
    dpu = build_dpu("faults.c", "-g", "-DNR_TASKLETS=4")
    result = run([build_host("run_fault.c"), dpu, mode, 2], PYUPMEM_EMU_STRICT="1")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"launch={DPU_ERR_DPU_FAULT}" in out
    assert "dpu0 done=1 fault=1" in out
    assert "dpu1 done=1 fault=0" in out
    fault_line = next(line for line in out.splitlines() if line.startswith("DPU fault: "))
    assert message in fault_line
    assert "tasklet 2" in fault_line
    if mode == 8:  # a deadlock is the whole DPU's: named once, by its waiting tasklets
        assert fault_line.endswith("(tasklet 2 in barrier_wait)"), fault_line
    if marker is not None:
        assert re.search(rf"faults\.c:{line_of(marker)}\)", fault_line), fault_line
    crash = {6: "case 6: abort();"}.get(mode)
    if crash is not None:  # a crash names the program's own line, from its DWARF lines
        assert f"faults.c:{line_of(crash)} (tasklet 2)" in fault_line, fault_line
    # A faulted DPU stays faulted until it is loaded again; then the whole set works.
    assert f"relaunch={DPU_ERR_DPU_FAULT}" in out
    assert "after_reload=0" in out
    assert "dpu0 finished=1" in out and "dpu1 finished=1" in out
    assert out.rstrip().endswith("host alive")


def test_fault_message_also_goes_to_stderr():
    dpu = build_dpu("faults.c", "-DNR_TASKLETS=4")
    env = toolchain_env(PYUPMEM_EMU_STRICT="1")
    env.pop("PYUPMEM_EMU_QUIET", None)
    result = subprocess.run(
        [str(build_host("run_fault.c")), str(dpu), "1", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "pyupmem emulator: DPU#0x0: mram_read: size 12" in result.stderr


@pytest.mark.parametrize("asked", [False, True])
def test_many_faults_at_once_raise_one_error_and_print_little(tmp_path, asked):
    """pyupmem raises one error holding every DPU's message and prints nothing else; asked
    to print (profile key emuPrintFaults, the default for C hosts), a few lines, not one
    per DPU."""
    import os
    import sys

    profile = "emuPrintFaults=true" if asked else ""
    script = tmp_path / "many.py"
    script.write_text(
        "import pyupmem as pim\n"
        "p = pim.build_program('#include <defs.h>\\n#include <stdlib.h>\\n"
        "int main(void){ if (me() == 0) abort(); return 0; }\\n', nr_tasklets=2, name='aborts')\n"
        f"with pim.DpuSet(128, profile={profile!r}) as dpus:\n"
        "    dpus.load(p)\n"
        "    try:\n"
        "        dpus.launch()\n"
        "    except pim.DpuFaultError as error:\n"
        "        print('faults', len(error.faults))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYUPMEM_EMU_QUIET"}
    done = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
    )
    assert "faults 128" in done.stdout, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("pyupmem emulator:")]
    if not asked:
        assert lines == []
        return
    # Three faults and one line saying there are more (workers print concurrently, so in
    # any order).
    assert len(lines) == 4, lines
    assert sum("more DPUs faulted" in line for line in lines) == 1, lines


def test_a_crash_in_python_names_the_file_line_and_function():
    import numpy as np

    import pyupmem as pim

    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(build_dpu("faults.c", "-g", "-DNR_TASKLETS=4"))
        dpus.broadcast("mode", np.uint32(6))
        with pytest.raises(pim.DpuFaultError) as caught:
            dpus.launch()
    assert f"abort() called (SIGABRT) in main() at faults.c:{line_of('case 6: abort();')}" in str(
        caught.value
    )
