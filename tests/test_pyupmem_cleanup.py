"""Nothing is left behind: after an exception inside a ``with DpuSet`` block the DPUs are
freed, and no worker process and no shared memory of the emulator remains."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from emu_support import descendants, emulator_memory

import pyupmem as pim

KERNEL = r"""
#include <defs.h>
#include <mram.h>
#include <stdint.h>
__host uint32_t mode;
__host uint32_t loops;
__mram_noinit uint64_t buf[16];
int main(void)
{
    volatile uint32_t counter = 0;
    if (mode == 1 && me() == 0)
        mram_read((__mram_ptr void *)((uintptr_t)buf + 4), (void *)0, 8);
    if (mode == 2)
        for (uint32_t i = 0; i < loops; i++)
            counter++;
    return 0;
}
"""


def wait_until_clean(baseline: set[int], timeout: float = 60.0) -> tuple[set[int], list[str]]:
    # The workers end on their own after the set is freed: a bound long enough for a
    # loaded machine (waiting costs nothing when they are quick).
    deadline = time.monotonic() + timeout
    while True:
        extra = descendants(os.getpid()) - baseline
        memory = emulator_memory()
        if (not extra and not memory) or time.monotonic() > deadline:
            return extra, memory
        time.sleep(0.02)


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=4, name="cleanup_kernel")


@pytest.mark.parametrize("failure", ["python", "fault", "running", "access"])
def test_exception_in_with_block_leaves_nothing(program: pim.Program, failure: str) -> None:
    baseline = descendants(os.getpid())
    with pytest.raises((RuntimeError, pim.DpuError)):
        with pim.DpuSet(70) as dpus:
            dpus.load(program)
            assert descendants(os.getpid()) - baseline, "the emulator should run workers"
            assert emulator_memory()
            if failure == "python":
                raise RuntimeError("boom")
            if failure == "fault":
                dpus.broadcast("mode", np.uint32(1))
                dpus.launch()
            if failure == "running":
                dpus.broadcast("mode", np.uint32(2))
                dpus.broadcast("loops", np.uint32(4_000_000_000))
                dpus.launch(asynchronous=True)
                raise RuntimeError("left while the DPUs run")
            if failure == "access":
                dpus.broadcast("buf", np.zeros(3, np.uint8), raw=True)
    assert dpus.closed
    extra, memory = wait_until_clean(baseline)
    assert not extra, f"worker processes left: {sorted(extra)}"
    assert not memory, f"emulator memory left: {memory}"
    # The DPUs are free again: a set of the whole (small) system can be allocated.
    with pim.DpuSet(profile="nrRanks=2") as again:
        assert len(again) == 128


def test_garbage_collected_set_is_freed(program: pim.Program) -> None:
    baseline = descendants(os.getpid())
    dpus = pim.DpuSet(8)
    dpus.load(program)
    del dpus
    extra, memory = wait_until_clean(baseline)
    assert not extra and not memory


def test_interpreter_exit_with_running_dpus_leaves_nothing(tmp_path: Path) -> None:
    script = tmp_path / "leave.py"
    binary = pim.build_program(KERNEL, nr_tasklets=4, name="cleanup_kernel").path
    script.write_text(
        "import os, sys, numpy as np, pyupmem as pim\n"
        f"program = pim.Program({str(binary)!r})\n"
        "dpus = pim.DpuSet(16)\n"
        "dpus.load(program)\n"
        "dpus.broadcast('mode', np.uint32(2))\n"
        "dpus.broadcast('loops', np.uint32(4_000_000_000))\n"
        "dpus.launch(asynchronous=True)\n"
        "print(os.getpid(), flush=True)\n"
        "sys.exit(0)\n"
    )
    before = descendants(os.getpid())
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    deadline = time.monotonic() + 60  # only a hang takes this long
    while descendants(os.getpid()) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not descendants(os.getpid()) - before
    # No process of that interpreter's (orphaned workers would be re-parented, so look
    # for the program's name instead).
    leftovers = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"cleanup_kernel" in cmdline:
                leftovers.append(entry.name)
    deadline = time.monotonic() + 60  # only a hang takes this long
    while leftovers and time.monotonic() < deadline:
        time.sleep(0.05)
        leftovers = [
            p
            for p in leftovers
            if Path("/proc", p).exists()
            and "Z" not in Path("/proc", p, "stat").read_text().rsplit(")", 1)[1][:3]
        ]
    assert not leftovers, f"workers left after the interpreter exited: {leftovers}"


@pytest.mark.usefixtures("ctrl_c_raises")
def test_ctrl_c_during_a_launch_interrupts_and_leaves_nothing(program: pim.Program) -> None:
    import signal
    import threading

    baseline = descendants(os.getpid())
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with pim.DpuSet(8) as dpus:
            dpus.load(program)
            dpus.broadcast("mode", np.uint32(2))
            dpus.broadcast("loops", np.uint32(4_000_000_000))
            timer.start()
            dpus.launch()  # would run for many seconds
    timer.join()
    assert time.monotonic() - start < 60  # the launch alone would run for minutes
    assert dpus.closed
    extra, memory = wait_until_clean(baseline)
    assert not extra and not memory
