"""The emulator's DPU compiler (gcc underneath) as UPMEM's clang: the same diagnostics under
-Wall -Wextra -Werror, warnings of undefined behaviour whose outcome differs between the two
compilers on by default (and never errors), and the DPU's variable attributes accepted
wherever clang accepts them, with clang's layout (arrays of MRAM pointers included)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from emu_support import emulator, toolchain_env, toolchain_module

import pyupmem as pim

# Code that UPMEM's clang builds without a warning under -Wall -Wextra, where gcc warns:
CLANG_CLEAN = """
#include <stdint.h>
#include <defs.h>
#include <mram.h>
__mram_noinit uint64_t area[128];
__host uint32_t seed, out32;
__host uint64_t out, as_integer;
__host uint32_t partial[NR_TASKLETS];
int main(void)
{
    uint64_t x = (uint64_t)seed * 2654435761u;
    uint64_t v = 0;
    /* a 64-bit integer cast to a (32-bit) pointer: clang warns only for a smaller integer */
    __mram_ptr uint64_t *p = (__mram_ptr uint64_t *)((uint32_t)(uintptr_t)area + (x & 127) * 8);
    mram_read(p, &v, 8);
    as_integer = (uint64_t)(uintptr_t)&out;          /* a pointer to a larger integer */
    unsigned id = me();
    if (id >= 0)                                     /* -Wtype-limits: not in clang's -Wextra */
        v++;
    if (id == 1)                                     /* at NR_TASKLETS=1 gcc's flow-sensitive */
        partial[id] = 5;                             /* -Warray-bounds; clang checks constants */
    switch (seed) {
    case 1:
        v++;                                         /* -Wimplicit-fallthrough: not in -Wextra */
    case 2:
        v++;
        break;
    default:
        break;
    }
    out = v;
    return 0;
}
"""

SELF_INITIALISED = """
#include <stdint.h>
#include <defs.h>
__host uint32_t size, rest_out;
int main(void)
{
    uint32_t rest = size - rest;   /* read in its own initialiser: undefined */
    rest_out = rest;
    return 0;
}
"""


def _compile(tmp_path: Path, source: str, *flags: str, cxx: bool = False, driver: str = ""):
    path = tmp_path / ("program.cpp" if cxx else "program.c")
    path.write_text(source)
    compiler = driver or ("clang++" if cxx else "dpu-upmem-dpurte-clang")
    env = toolchain_env()
    env["PATH"] = f"{emulator().upmem_home / 'bin'}:{env['PATH']}"  # the SDK's clang++
    return subprocess.run(
        [compiler, "-O2", *flags, "-c", str(path), "-o", str(tmp_path / "program.o")],
        env=env,
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize("tasklets", [1, 16])
def test_clang_clean_code_builds_with_werror_and_no_warning(tmp_path, tasklets):
    result = _compile(
        tmp_path, CLANG_CLEAN, "-Wall", "-Wextra", "-Werror", f"-DNR_TASKLETS={tasklets}"
    )
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr, result.stderr


def test_warnings_both_compilers_give_still_fail_a_werror_build(tmp_path):
    source = "int main(void) { int unused = 1; return 0; }\n"
    result = _compile(tmp_path, source, "-Wall", "-Werror")
    assert result.returncode != 0
    assert "unused variable" in result.stderr


def test_a_command_line_w_option_wins_over_the_mapping(tmp_path):
    result = _compile(tmp_path, CLANG_CLEAN, "-Wextra", "-Wtype-limits", "-DNR_TASKLETS=1")
    assert result.returncode == 0, result.stderr
    assert "[-Wtype-limits]" in result.stderr


@pytest.mark.parametrize("flags", [(), ("-Wall", "-Wextra", "-Werror")])
def test_a_variable_read_in_its_own_initialiser_is_named_without_failing_the_build(tmp_path, flags):
    result = _compile(tmp_path, SELF_INITIALISED, *flags)
    assert result.returncode == 0, result.stderr
    assert "program.c:7:" in result.stderr and "[-Wuninitialized]" in result.stderr


@pytest.mark.parametrize("driver", ["clang++", "dpu-upmem-dpurte-clang"])
def test_cxx_builds_take_the_same_mapping_without_c_only_options(tmp_path, driver):
    source = "int main() { unsigned id = 0; return id >= 0 ? 0 : 1; }\n"
    result = _compile(tmp_path, source, "-Wall", "-Wextra", "-Werror", cxx=True, driver=driver)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr


# The attribute x type matrix: each of the DPU's variable attributes on a scalar, an array,
# a pointer and an array of pointers (the attribute after the `*`, where clang applies it
# to the variable) and a struct.
ATTRIBUTES = ("__mram", "__mram_noinit", "__host", "__dma_aligned")
KINDS = {
    # kind: (declaration with {a} the attribute and {n} the name, size in bytes)
    "scalar": ("uint32_t {a} {n};", 4),
    "bytes": ("uint8_t {a} {n}[3];", 3),
    "pointer": ("uint32_t *{a} {n};", 4),
    "pointers": ("uint32_t *{a} {n}[5];", 20),
    "struct": ("struct pair {a} {n};", 4),
}


def _matrix_source() -> str:
    lines = [
        "#include <stdint.h>",
        "#include <defs.h>",
        "#include <mram.h>",
        "struct pair { uint8_t tag; uint16_t value; };",
        "__host uint32_t target;",
    ]
    for attribute in ATTRIBUTES:
        for kind, (declaration, _) in KINDS.items():
            lines.append(declaration.format(a=attribute, n=f"v{attribute}_{kind}"))
    lines += [
        "int main(void)",
        "{",
        "    v__mram_pointers[4] = &target;    /* a WRAM pointer kept in MRAM */",
        "    *v__mram_pointers[4] += 1;",
        "    v__host_pointers[1] = &target;",
        "    *v__host_pointers[1] += 100;",
        "    return 0;",
        "}",
    ]
    return "\n".join(lines) + "\n"


MRAM_POINTERS = """
#include <stdint.h>
#include <defs.h>
#include <mram.h>
uint32_t *__mram_noinit table[2048];
__host uint32_t target;
int main(void)
{
    table[2047] = &target;           /* a WRAM pointer kept in MRAM */
    *table[2047] += 42;
    return 0;
}
"""


def test_an_array_of_mram_pointers_builds_at_the_start_of_mram_and_works():
    program = pim.build_program(MRAM_POINTERS, nr_tasklets=1)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        table = dpus.symbol("table")
        assert (table.address, table.size, table.memory) == (0x08000000, 8192, "MRAM")
        dpus.broadcast("target", np.uint32(1))
        dpus.launch()
        assert dpus.gather("target", np.uint32, 1)[0, 0] == 43


def test_pointers_kept_in_mram_and_host_variables_work():
    program = pim.build_program(_matrix_source(), nr_tasklets=1)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.broadcast("target", np.uint32(1))
        dpus.launch()
        assert dpus.gather("target", np.uint32, 1)[0, 0] == 102


@pytest.mark.parametrize("attribute", ATTRIBUTES)
def test_the_attribute_matrix_has_clangs_sizes_alignment_and_memories(attribute):
    program = pim.build_program(_matrix_source(), nr_tasklets=1)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        for kind, (_, size) in KINDS.items():
            symbol = dpus.symbol(f"v{attribute}_{kind}")
            assert symbol.size == size, (kind, symbol.size)
            assert symbol.address % 8 == 0, (kind, hex(symbol.address))
            expected = "MRAM" if attribute.startswith("__mram") else "WRAM"
            assert symbol.memory == expected, (kind, symbol.memory)
            if expected == "WRAM":
                assert 8 <= symbol.address < 64 << 10  # WRAM 0..7 is the runtime's zero


def test_the_source_step_moves_only_a_declarations_attribute():
    rewrite = toolchain_module("dpu_source").rewrite
    code = rewrite(
        "uint32_t *__mram_noinit table[2048];\n"
        "uint32_t *__host a[2][3] = {0}, *__dma_aligned b;\n"
        "x = (uint32_t *__dma_aligned)p;\n"
    ).splitlines()[1:]
    assert code == [
        "uint32_t *__DPURT_MRAM_SPACE table[2048] __DPURT_MRAM_NOINIT_ATTRIBUTES ;",
        "uint32_t * a[2][3]  __DPURT_HOST_ATTRIBUTES = {0}, * b __DPURT_DMA_ALIGNED_ATTRIBUTES ;",
        "x = (uint32_t *__dma_aligned)p;",  # a cast: left as it is
    ]
