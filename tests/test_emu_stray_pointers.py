"""Null and stray pointers, and ordinary accesses at MRAM addresses, as on a DPU.

- WRAM 0..7 hold the SDK runtime's 8-byte zero (``__sys_null_pointer``): no variable lies
  there, and a read through a null pointer gives 0, with a warning naming the function and
  line, or a fault in strict mode.
- A small stray pointer (an address below 64 KiB) is a DPU WRAM address: it reaches the
  variable at that WRAM address, as on a DPU.
- An ordinary access at an MRAM address in a loop warns once per source line and then runs
  at native speed (the page stays mapped onto WRAM for the rest of the launch).
- Every warning and fault names the function, and the file and line when the program has
  line information; the emulator's compiler adds ``-g`` unless told ``-g0``, and ``-g`` does
  not change the generated code.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from emu_support import toolchain_env, toolchain_module

import pyupmem as pim

NULL_AND_STRAY = """
#include <stdint.h>
#include <defs.h>
__host uint32_t first;
__host uint64_t null_read, constant_null_read, stray_read;
__host uint32_t stray;          /* the host puts a DPU WRAM address here */
__host uint32_t zero;           /* 0, which the compiler cannot see */
int main(void)
{
    volatile uint64_t *null = (uint64_t *)(uintptr_t)zero;
    null_read = *null;
    constant_null_read = *(volatile uint32_t *)0;
    volatile uint32_t *pointer = (uint32_t *)(uintptr_t)stray;
    stray_read = *pointer;
    *pointer = 77;
    return 0;
}
"""


def _warnings(stderr: str, text: str) -> list[str]:
    return [line for line in stderr.splitlines() if "warning:" in line and text in line]


def test_wram_0_to_7_is_reserved_and_a_null_read_gives_zero_with_a_warning(capfd):
    program = pim.build_program(NULL_AND_STRAY, nr_tasklets=1)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        addresses = {name: dpus.symbol(name).address for name in ("first", "null_read", "stray")}
        assert min(addresses.values()) >= 8  # nothing at WRAM 0..7
        dpus.broadcast("first", np.uint32(1234))
        dpus.broadcast("stray", np.uint32(addresses["first"]))
        dpus.broadcast("null_read", np.uint64(99))
        dpus.broadcast("constant_null_read", np.uint64(99))
        capfd.readouterr()
        dpus.launch()
        assert dpus.gather("null_read", np.uint64, 1)[0, 0] == 0
        assert dpus.gather("constant_null_read", np.uint64, 1)[0, 0] == 0
        # the stray pointer is the DPU WRAM address of `first`: it reads and writes it
        assert dpus.gather("stray_read", np.uint64, 1)[0, 0] == 1234
        assert dpus.gather("first", np.uint32, 1)[0, 0] == 77
    err = capfd.readouterr().err
    null = _warnings(err, "through a null pointer (address 0x0000) reaches WRAM 0..7")
    assert [line.split("(tasklet 0, ")[1][:29] for line in null] == [
        "in main() at source0.c:11); t",
        "in main() at source0.c:12); t",
    ], null
    stray = _warnings(err, f"through a stray pointer (address {addresses['first']:#06x}")
    assert len(stray) == 2 and "in main() at source0.c:14)" in stray[0], stray


def test_a_null_read_faults_in_strict_mode_naming_the_function():
    program = pim.build_program(NULL_AND_STRAY, nr_tasklets=1)
    with pim.DpuSet(1, backend="emulator", strict=True) as dpus:
        dpus.load(program)
        with pytest.raises(
            pim.DpuFaultError,
            match=r"through a null pointer \(address 0x0000\).*in main\(\) at source0.c:11",
        ):
            dpus.launch()


LOOP = """
#include <stdint.h>
#include <defs.h>
__mram_noinit uint64_t results[4];
__host uint64_t wram_values[4];
__host uint32_t offset, rounds;
__host uint64_t total;
int main(void)
{
    uint64_t sum = 0;
    uint32_t at = (uint32_t)(uintptr_t)&results[0] + offset;
    for (uint32_t round = 0; round < rounds; round++) {
        sum += *(volatile uint64_t *)(uintptr_t)at;
        sum += 10 * *(volatile uint64_t *)(uintptr_t)(at + 8);
        *(volatile uint64_t *)(uintptr_t)(at + 16) = round;
    }
    total = sum;
    return 0;
}
"""


def test_plain_mram_accesses_in_a_loop_warn_once_per_line_and_stay_right(capfd):
    program = pim.build_program(LOOP, nr_tasklets=1)
    rounds = 20_000
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        target = dpus.symbol("wram_values").address
        dpus.broadcast("offset", np.uint32(target))
        dpus.broadcast("rounds", np.uint32(rounds))
        capfd.readouterr()
        for _launch in range(2):  # the second launch maps its pages afresh
            dpus.broadcast("wram_values", np.array([3, 5, 0, 1], np.uint64))
            dpus.launch()
            assert dpus.gather("total", np.uint64, 1)[0, 0] == rounds * (3 + 50)
            assert list(dpus.gather("wram_values", np.uint64, 4)[0]) == [3, 5, rounds - 1, 1]
    warnings = _warnings(capfd.readouterr().err, "an ordinary load or store at the MRAM address")
    lines = sorted(line.split("source0.c:")[1].split(")")[0] for line in warnings)
    assert lines == ["13", "14", "15"], warnings  # once per line, for both launches
    assert all("in main() at source0.c:" in line for line in warnings)


HELPER_RULE = """
#include <stdint.h>
#include <mram.h>
#include <defs.h>
__mram_noinit uint64_t area[4];
__host uint64_t buffer[4];
static __noinline void helper(void)
{
    mram_read(area, buffer, 12);     /* a size that is not a multiple of 8 */
    buffer[3]++;                     /* (not a tail call, which would return to main) */
}
int main(void)
{
    helper();
    return 0;
}
"""


@pytest.mark.parametrize("debug", [True, False])
def test_every_warning_names_the_function_with_or_without_line_information(capfd, debug):
    program = pim.build_program(HELPER_RULE, nr_tasklets=1, debug=debug)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        capfd.readouterr()
        dpus.launch()
    (warning,) = _warnings(capfd.readouterr().err, "size 12 is not a multiple of 8")
    # the DMA rules' file and line come from the program's own __FILE__ and __LINE__
    assert "(tasklet 0, in helper() at /" in warning and "/source0.c:9)" in warning, warning
    with pim.DpuSet(1, backend="emulator", strict=True) as dpus:
        dpus.load(program)
        with pytest.raises(pim.DpuFaultError, match=r"in helper\(\) at /.*/source0.c:9"):
            dpus.launch()


CRASH = """
#include <stdint.h>
#include <defs.h>
__host uint32_t divisor;
__host uint32_t quotient;
static __noinline uint32_t divide(uint32_t value)
{
    return value / divisor;
}
int main(void)
{
    quotient = divide(12);
    return 0;
}
"""


def _build_raw(tmp_path, name: str, *flags: str, **env: str):
    source = tmp_path / f"{name}.c"
    source.write_text(CRASH)
    output = tmp_path / name
    subprocess.run(
        ["dpu-upmem-dpurte-clang", "-O2", *flags, "-o", str(output), str(source)],
        check=True,
        env=toolchain_env(**env),
    )
    return output


def test_the_emulators_compiler_adds_g_by_default_and_g0_turns_it_off(tmp_path):
    """A Makefile without -g still gets the line; -g0 takes it away but keeps the
    function; -g changes no byte of the code."""
    plain = _build_raw(tmp_path, "plain")
    without = _build_raw(tmp_path, "without", "-g0")
    messages = {}
    for name, binary in (("plain", plain), ("without", without)):
        with pim.DpuSet(1, backend="emulator") as dpus:
            dpus.load(binary)
            dpus.broadcast("divisor", np.uint32(0))
            with pytest.raises(pim.DpuFaultError) as caught:
                dpus.launch()
            messages[name] = str(caught.value)
    assert "in divide() at plain.c:8" in messages["plain"], messages
    assert "in divide() (build with -g for its line)" in messages["without"], messages
    elf = toolchain_module("check_memory")

    def code(binary) -> bytes:
        image = binary.read_bytes()
        sections, _ = elf.read_elf32(image)
        _, offset, size = sections[".text"]
        return image[offset : offset + size]

    assert code(plain) == code(without)
    by_environment = _build_raw(tmp_path, "by_environment", PYUPMEM_EMU_DEBUG="0")
    assert code(by_environment) == code(plain)

    def line_table(binary) -> int:  # the DPU C library brings some of its own
        return elf.read_elf32(binary.read_bytes())[0].get(".debug_line", (0, 0, 0))[2]

    assert line_table(plain) > line_table(without) == line_table(by_environment)


CONSTANT_ADDRESSES = """
#include <stdint.h>
#include <defs.h>
__host uint64_t word, byte, restored;
int main(void)
{
    *(volatile uint32_t *)0 = 0x12345678;   /* overwrites the runtime's zero, as on a DPU */
    word = *(volatile uint32_t *)0;
    *(volatile uint8_t *)4 = 7;
    byte = *(volatile uint8_t *)4;
    *(volatile uint64_t *)0 = 0;            /* puts it back */
    restored = *(volatile uint64_t *)0;
    return 0;
}
"""


def test_moves_at_constant_null_addresses_reach_wram_0_to_7():
    program = pim.build_program(CONSTANT_ADDRESSES, nr_tasklets=1)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.launch()
        values = [int(dpus.gather(name, np.uint64, 1)[0, 0]) for name in ("word", "byte")]
        assert values == [0x12345678, 7]
        assert dpus.gather("restored", np.uint64, 1)[0, 0] == 0
