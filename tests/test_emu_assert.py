"""assert() in a DPU program faults that DPU with the assertion, its file, line and
function in the exception only: glibc's own "Assertion ... failed" line is not printed on
stderr once per DPU."""

import subprocess
from pathlib import Path

import numpy as np
import pytest
from emu_support import cxx_compiler, emulator, toolchain_env

import pyupmem as pim

KERNEL = r"""
#include <assert.h>
#include <defs.h>
#include <stdint.h>
__host uint32_t value;
int main(void)
{
    assert(value == 1); /* the checked line */
    return 0;
}
"""


def test_an_assert_goes_into_the_exception_only(capfd):
    program = pim.build_program(KERNEL, nr_tasklets=1, name="assert_kernel")
    line = next(n for n, text in enumerate(KERNEL.splitlines(), 1) if "checked line" in text)
    with pim.DpuSet(4) as dpus:
        dpus.load(program)
        dpus.broadcast("value", 2)
        capfd.readouterr()
        with pytest.raises(pim.DpuFaultError) as caught:
            dpus.launch()
    err = capfd.readouterr().err
    assert "Assertion" not in err and "assertion" not in err, err
    assert sorted(caught.value.faults) == [0, 1, 2, 3]
    message = caught.value.faults[2]
    assert "assertion failed: value == 1 in main()" in message
    assert f"source0.c:{line}" in message  # the build names the kernel's source source0.c


CXX_KERNEL = r"""
#include <assert.h>
#include <defs.h>
#include <stdint.h>
__host uint32_t value;
constexpr uint32_t twice(uint32_t x)
{
    assert(x != 0); /* the checked line */
    return 2 * x;
}
static_assert(twice(3) == 6, "an assert in a constexpr function still folds");
int main()
{
    value = twice(value);
    return 0;
}
"""


@pytest.mark.skipif(cxx_compiler() is None, reason="no C++ compiler (g++ or c++) on PATH")
def test_an_assert_in_a_cxx17_constexpr_function_builds_and_faults(tmp_path: Path) -> None:
    # C++17 allows no static variable in a constexpr function: the assertion's strings,
    # kept out of WRAM, live in a lambda there.
    source, binary = tmp_path / "twice.cpp", tmp_path / "twice"
    source.write_text(CXX_KERNEL)
    compiled = subprocess.run(
        [str(emulator().upmem_home / "bin" / "clang++"), "-std=c++17", "-O2", "-g",
         "-DNR_TASKLETS=1", "-o", str(binary), str(source)],
        env=toolchain_env(), capture_output=True, text=True,
    )
    assert compiled.returncode == 0, compiled.stderr
    line = next(n for n, text in enumerate(CXX_KERNEL.splitlines(), 1) if "checked line" in text)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(binary)
        dpus.broadcast("value", 5)
        dpus.launch()
        assert dpus.gather("value", np.uint32, 1)[0] == 10
        dpus.broadcast("value", 0)
        with pytest.raises(pim.DpuFaultError) as caught:
            dpus.launch()
    message = caught.value.faults[0]
    assert "assertion failed: x != 0 in twice(" in message, message
    assert f"twice.cpp:{line}" in message, message
