"""Messages that name the real problem (issue 27, item 8): a transfer before any load says
no program is loaded, a read without dtype names its symbol, NR_TASKLETS given as a define
is the tasklet count, and an unknown symbol's error offers the close names."""

from __future__ import annotations

import numpy as np
import pytest

import pyupmem as pim
from pyupmem.build.elf_symbols import close_names, variable_names

KERNEL = r"""
#include <stdint.h>
#include <mram.h>
__host uint32_t x;
__host uint32_t counter;
__mram_noinit uint32_t arr[16];
int main(void) { return 0; }
"""

OTHER = "#include <defs.h>\n#include <stdint.h>\n__host uint32_t y;\nint main(void) { return 0; }\n"


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=2, name="messages_kernel")


@pytest.mark.parametrize(
    "call",
    [
        lambda d: d.broadcast("x", 1),
        lambda d: d.broadcast("x", np.uint32(1)),
        lambda d: d.write("x", 1),
        lambda d: d.scatter("x", [1, 2]),
        lambda d: d.gather("arr"),
        lambda d: d[0].read("arr"),
        lambda d: d[0:1].write("x", 1),
    ],
    ids=["broadcast int", "broadcast numpy", "write", "scatter", "gather", "read", "sub-set"],
)
def test_a_transfer_before_any_load_says_no_program_is_loaded(call) -> None:
    with pim.DpuSet(2) as dpus:
        with pytest.raises(pim.DpuProgramError, match="load a program first") as info:
            call(dpus)
    message = str(info.value)
    assert "DPU_ERR_NO_PROGRAM_LOADED" in message and info.value.before_call
    assert "debug information" not in message
    assert "'x'" in message or "'arr'" in message


def test_a_read_without_dtype_names_its_symbol(program) -> None:
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        dpus[1].load(pim.build_program(OTHER, nr_tasklets=1, name="messages_other"))
        # Two programs: the set as a whole has no one symbol table to type 'arr' by.
        with pytest.raises(pim.SymbolTypeError, match=r"gather\('arr'\) needs dtype=") as info:
            dpus.gather("arr")
        assert "the symbol" not in str(info.value)
        with pytest.raises(TypeError, match="no one program") as number:
            dpus.broadcast("x", 1)
        assert "debug information" not in str(number.value)


@pytest.mark.parametrize("value", [8, "8"])
def test_nr_tasklets_given_as_a_define_is_the_tasklet_count(value) -> None:
    built = pim.build_program(KERNEL, defines={"NR_TASKLETS": value}, name="messages_nr8")
    assert built.nr_tasklets == 8
    assert "redefined" not in built.build_log  # one -DNR_TASKLETS, not two


@pytest.mark.parametrize(
    ("defines", "kwargs", "error", "message"),
    [
        ({"NR_TASKLETS": 40}, {}, ValueError, r'defines\["NR_TASKLETS"\] must be in 1..24'),
        ({"NR_TASKLETS": 0}, {}, ValueError, "1..24"),
        ({"NR_TASKLETS": None}, {}, ValueError, "needs a number"),
        ({"NR_TASKLETS": "many"}, {}, TypeError, "must be an int"),
        ({"NR_TASKLETS": 8}, {"nr_tasklets": 8}, ValueError, "given twice"),
    ],
)
def test_nr_tasklets_as_a_define_is_checked_as_nr_tasklets(defines, kwargs, error, message):
    with pytest.raises(pim.PyUpmemError, match=message) as info:
        pim.build_program(KERNEL, defines=defines, name="messages_bad", **kwargs)
    assert isinstance(info.value, error)


def test_an_unknown_symbol_offers_the_close_names(program) -> None:
    with pim.DpuSet(1) as dpu:
        dpu.load(program)
        with pytest.raises(pim.DpuSymbolError, match=r"did you mean 'arr'\?"):
            dpu.gather("arrr", np.uint32, 4)
        with pytest.raises(pim.DpuSymbolError, match=r"did you mean 'counter'\?"):
            dpu.broadcast("countr", 1)
        with pytest.raises(pim.DpuSymbolError) as far:
            dpu.symbol("zzzzzz")
        assert "did you mean" not in str(far.value)  # nothing close: no guess


def test_the_close_names_come_from_the_symbol_table_without_debug_information() -> None:
    built = pim.build_program(KERNEL, nr_tasklets=1, name="messages_nodebug", debug=False)
    names = variable_names(built.path)
    assert {"x", "counter", "arr"} <= set(names)
    assert variable_names(built.path.read_bytes()) == names
    with pim.DpuSet(1) as dpu:
        dpu.load(built.path.read_bytes())  # from memory: the image is read instead
        with pytest.raises(pim.DpuSymbolError, match=r"did you mean 'x'\?"):
            dpu.symbol("xx")
    # The runtime's names are offered only for a name that looks like one.
    assert close_names("nr_tasklets", ["__pyupmem_nr_tasklets"]) == []
    assert close_names("__pyupmem_nr_tasklet", ["__pyupmem_nr_tasklets"]) == [
        "__pyupmem_nr_tasklets"
    ]
    assert variable_names(b"not an ELF file") == []
