"""assert() in a DPU program faults that DPU with the assertion, its file, line and
function in the exception only: glibc's own "Assertion ... failed" line is not printed on
stderr once per DPU."""

import pytest

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
