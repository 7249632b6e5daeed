"""A built program's resource use (pyupmem.build.resources, Program.resources, python -m pyupmem
inspect): WRAM by section and stacks as the emulator's dpu_load counts them, the heap
left, MRAM, against the chip's limits; and launch(timeout=...) for a synchronous launch."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from dpu_gate import GATE_C, Gate

import pyupmem as pim
from pyupmem.build.resources import read_resources

KERNEL = r"""
#include <defs.h>
#include <mram.h>
#include <stdint.h>
__host uint32_t zeros[100];              /* .bss: 400 bytes */
__host uint32_t ones[10] = {1, 1, 1};    /* .data: 40 bytes */
__mram_noinit uint8_t big[1 << 20];      /* MRAM: 1 MiB */
int main(void) { zeros[me()] = ones[0]; return 0; }
"""


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=3, name="resources",
                             defines={"STACK_SIZE_DEFAULT": 512})


def test_resources_by_section_stack_and_memory(program: pim.Program) -> None:
    found = program.resources
    assert found.nr_tasklets == 3 and found.stacks == (512, 512, 512)
    assert found.wram_sections[".bss"] >= 400 and found.wram_sections[".data"] >= 40
    assert found.wram_used == sum(found.wram_sections.values()) + 3 * 512
    assert found.heap_left == 65536 - found.wram_used
    assert found.mram_used >= 1 << 20 and found.mram_left == (64 << 20) - found.mram_used
    assert found.iram_instructions is None  # the emulator's build is host code
    assert found.fits
    text = str(found)
    assert "stacks" in text and "3 tasklets, 512 B each" in text and "heap left" in text


def test_wram_use_is_what_the_emulator_counts_at_load(capfd: pytest.CaptureFixture) -> None:
    # 63,600 bytes of variables: fits v1A's 65,536 bytes, not v1B's 63,488. dpu_load on a
    # v1B set refuses it and says how much it needs: the same figure.
    source = "#include <defs.h>\n__host uint8_t big[63600];\nint main(void) { return 0; }\n"
    program = pim.build_program(source, nr_tasklets=1, name="wram_edge",
                                defines={"STACK_SIZE_DEFAULT": 256})
    v1a, v1b = read_resources(program.path), read_resources(program.path, chip="v1B")
    assert v1a.fits and not v1b.fits and v1b.heap_left < 0
    assert "DOES NOT FIT" in v1b.table()
    with pim.DpuSet(1, profile="chipVersion=v1B") as dpus, pytest.raises(pim.DpuProgramError):
        dpus.load(program)
    needed = re.search(r"needs (\d+) bytes of WRAM", capfd.readouterr().err)
    assert needed is not None and int(needed.group(1)) == v1b.wram_used


def test_inspect_command(program: pim.Program, tmp_path) -> None:
    run = [sys.executable, "-m", "pyupmem", "inspect"]
    shown = subprocess.run([*run, str(program.path)], capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert "WRAM" in shown.stdout and "MRAM" in shown.stdout and "IRAM" in shown.stdout
    facts = json.loads(subprocess.run([*run, "--json", str(program.path)],
                                      capture_output=True, text=True).stdout)
    assert facts["stacks"] == [512, 512, 512] and facts["fits"] is True
    bad = tmp_path / "not_elf"
    bad.write_text("hello")
    refused = subprocess.run([*run, str(bad)], capture_output=True, text=True)
    assert refused.returncode == 2 and "is not an ELF file" in refused.stderr
    assert "Traceback" not in refused.stderr


GATED = GATE_C + "int main(void) { wait_for_gate(); return 0; }"


def test_a_synchronous_launch_with_a_timeout() -> None:
    program = pim.build_program(GATED, nr_tasklets=1, name="gated")
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        gate = Gate(dpus)
        with pytest.raises(pim.DpuTimeoutError, match="keep running"):
            dpus.launch(timeout=0.1)  # the gate is shut: the launch cannot end
        assert not dpus.status().done
        gate.open()
        dpus.sync()
        dpus.launch(timeout=600)  # the gate is open: it ends, well within the limit
        assert dpus.status() == pim.DpuStatus(True, False)
        with pytest.raises(pim.ArgumentValueError, match="sync"):
            dpus.launch(asynchronous=True, timeout=1)
        with pytest.raises(pim.ArgumentValueError, match="seconds >= 0"):
            dpus.launch(timeout=-1)


def test_a_sub_set_s_synchronous_launch_with_a_timeout() -> None:
    program = pim.build_program(GATED, nr_tasklets=1, name="gated")
    with pim.DpuSet(3) as dpus:
        dpus.load(program)
        gate = Gate(dpus)
        part = dpus[[0, 2]]
        with pytest.raises(pim.DpuTimeoutError, match="keep running"):
            part.launch(timeout=0.1)  # the gate is shut: the launch cannot end
        assert not part.status().done
        gate.open()
        part.sync()
        part.launch(timeout=600)
        assert part.status() == pim.DpuStatus(True, False)
        with pytest.raises(pim.ArgumentValueError, match="sync"):
            part.launch(asynchronous=True, timeout=1)
        with pytest.raises(pim.ArgumentValueError, match="seconds >= 0"):
            part.launch(timeout=-1)


def test_the_packages_say_they_are_typed() -> None:
    import pimopt
    import rl

    for package in (pim, rl, pimopt):
        assert (Path(package.__file__).parent / "py.typed").is_file()
