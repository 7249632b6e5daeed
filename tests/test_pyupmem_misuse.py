"""Misuse: every error is a PyUpmemError that also derives from the matching builtin, and
says what is wrong and how to fix it."""

from __future__ import annotations

import numpy as np
import pytest

import pyupmem as pim

KERNEL = "#include <defs.h>\n__host unsigned int n;\nint main(void) { return 0; }\n"


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=1, name="misuse_kernel")


def _freed() -> pim.DpuSet:
    dpus = pim.DpuSet(1)
    dpus.free()
    return dpus


CASES = [
    ("float count", lambda p: pim.DpuSet(4.5), TypeError, "nr_dpus must be an int"),
    ("str count", lambda p: pim.DpuSet("4"), TypeError, r"int\('4'\)"),
    ("both counts", lambda p: pim.DpuSet(4, nr_ranks=1), ValueError, "not both"),
    ("tasklets 0", lambda p: pim.build_program(KERNEL, nr_tasklets=0), ValueError, "1..24"),
    ("tasklets str", lambda p: pim.build_program(KERNEL, nr_tasklets="2"), TypeError, "an int"),
    ("missing source", lambda p: pim.build_program("nope.c"), FileNotFoundError, "not found"),
    ("bad name", lambda p: pim.build_program(KERNEL, name="a/b"), ValueError, "plain file name"),
    ("NUL name", lambda p: pim.build_program(KERNEL, name="a\0b"), ValueError, "plain file"),
    ("empty name", lambda p: pim.build_program(KERNEL, name=""), ValueError, "non-empty"),
    ("callback", lambda p: pim.DpuSet(1).callback(3), TypeError, "takes a callable"),
    ("no source", lambda p: pim.build_program([]), ValueError, "at least one source"),
    ("index", lambda p: pim.DpuSet(8)[8], IndexError, "out of range for a set of 8"),
    ("mask length", lambda p: pim.DpuSet(4)[np.ones(3, bool)], IndexError, "one entry per DPU"),
    ("index type", lambda p: pim.DpuSet(2)["a"], TypeError, "indexed by an int"),
    ("timeout", lambda p: pim.DpuSet(1).sync(timeout=-1), ValueError, "seconds >= 0"),
    ("freed len", lambda p: len(_freed()), pim.DpuSetError, "was freed"),
    ("freed with", lambda p: _freed().__enter__(), pim.DpuSetError, "was freed"),
    ("python float", lambda p: _loaded(p).broadcast("n", 1.5), TypeError, "does not convert"),
    ("dtype", lambda p: _loaded(p).broadcast("n", np.float32(1)), TypeError, "astype"),
]


def _loaded(program: pim.Program) -> pim.DpuSet:
    dpus = pim.DpuSet(2)
    dpus.load(program)
    return dpus


@pytest.mark.parametrize(("label", "call", "builtin", "message"), CASES, ids=[c[0] for c in CASES])
def test_misuse_raises_a_pyupmem_error_of_the_builtin_kind(
    program, label, call, builtin, message
) -> None:
    with pytest.raises(pim.PyUpmemError, match=message) as info:
        call(program)
    assert isinstance(info.value, builtin), (label, type(info.value).__mro__)


def test_a_fault_on_many_dpus_is_one_error_listing_them(capfd: pytest.CaptureFixture) -> None:
    # (a store through a null pointer is a WRAM write on a DPU, not a fault)
    text = "#include <stdlib.h>\nint main(void) { abort(); return 0; }\n"
    program = pim.build_program(text, nr_tasklets=1, name="misuse_fault")
    with pim.DpuSet(128) as dpus:
        dpus.load(program)
        with pytest.raises(pim.DpuFaultError) as info:
            dpus.launch()
    assert len(info.value.faults) == 128
    assert "and 125 more faulty DPUs" in str(info.value)
