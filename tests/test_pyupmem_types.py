"""Typed symbols from the debug information: typed gathers, refused mismatches."""

from __future__ import annotations

import numpy as np
import pytest

import pyupmem as pim

KERNEL = r"""
#include <defs.h>
#include <stdint.h>
struct point { int32_t x; float y; uint16_t tag[3]; };
struct flags { uint32_t id; unsigned ready : 1; unsigned kind : 7; uint16_t after; };
__host uint32_t n;
__host struct flags states[2];
__host float weights[4][16];
__host struct point pts[5];
__host int64_t total;
__mram uint64_t big[128];
__mram_noinit int32_t blocks[64];
int main(void) { if (me() == 0) total = (int64_t)n * 2; return 0; }
"""


@pytest.fixture(scope="module")
def dpus():
    with pim.DpuSet(8) as dpus:
        dpus.load(pim.build_program(KERNEL, nr_tasklets=1, name="types_kernel"))
        yield dpus


def test_symbols_know_their_c_types(dpus: pim.DpuSet) -> None:
    program = dpus.program
    assert (program["n"].dtype, program["n"].shape, program["n"].ctype) == (
        np.dtype(np.uint32),
        (),
        "uint32_t",
    )
    assert program["weights"].shape == (4, 16) and program["weights"].ctype == "float[4][16]"
    assert program["pts"].dtype.names == ("x", "y", "tag")
    assert program["pts"].dtype.itemsize == 16 and program["pts"].shape == (5,)
    assert program["big"].dtype == np.uint64 and program["big"].memory == "MRAM"


def test_a_struct_with_bit_fields_is_raw_bytes_not_its_other_fields(dpus: pim.DpuSet) -> None:
    """numpy has no bit fields: the whole struct is bytes, never a dtype missing them."""
    states = dpus.program["states"]
    assert states.dtype == np.dtype("V8") and states.shape == (2,), states.dtype


def test_scalars_gather_one_value_per_dpu(dpus: pim.DpuSet) -> None:
    dpus.broadcast("n", 21)  # a Python int, converted to the symbol's uint32
    dpus.launch()
    total = dpus.gather("total")
    assert total.shape == (8,) and total.dtype == np.int64 and total.tolist() == [42] * 8
    assert dpus[3].read("total").shape == () and int(dpus[3].read("total")) == 42


def test_arrays_and_structs_gather_with_their_shape(dpus: pim.DpuSet) -> None:
    weights = np.arange(8 * 64, dtype=np.float32).reshape(8, 4, 16)
    dpus.scatter("weights", weights)
    gathered = dpus.gather("weights")
    assert gathered.shape == (8, 4, 16) and np.array_equal(gathered, weights)
    points = np.zeros((8, 5), dpus.symbol("pts").dtype)
    points["x"] = np.arange(40).reshape(8, 5)
    points["y"] = 0.5
    points["tag"][:, :, 2] = 9
    dpus.scatter("pts", points)
    back = dpus.gather("pts")
    assert back.shape == (8, 5) and back.dtype == points.dtype
    assert np.array_equal(back["x"], points["x"]) and (back["tag"][:, :, 2] == 9).all()


def test_mram_symbols_are_typed(dpus: pim.DpuSet) -> None:
    big = np.arange(8 * 128, dtype=np.uint64).reshape(8, 128)
    dpus.scatter("big", big)
    assert np.array_equal(dpus.gather("big"), big)
    dpus.broadcast("blocks", np.arange(64, dtype=np.int32))
    assert dpus.gather("blocks").shape == (8, 64)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda d: d.broadcast("n", np.float32(5)), pim.SymbolTypeError, "float32 data into 'n'"),
        (lambda d: d.broadcast("n", np.array([1, 2], np.int16)), pim.SymbolTypeError, "int16"),
        (
            lambda d: d.broadcast("weights", np.zeros((3, 5), np.float32)),
            pim.SymbolShapeError,
            r"shape \(3, 5\) does not fit 'weights'",
        ),
        (
            lambda d: d.scatter("weights", np.zeros((8, 4, 16), np.float64)),
            pim.SymbolTypeError,
            "float64 data into 'weights'",
        ),
        (
            lambda d: d.broadcast("pts", np.zeros(15, np.uint32)),
            pim.SymbolTypeError,
            "structured dtype",
        ),
        (
            lambda d: d.broadcast("big", np.zeros(128, np.int64)),
            pim.SymbolTypeError,
            r"astype\(np.uint64\)",
        ),
        (lambda d: d[0].write("n", 2**40), pim.SymbolTypeError, "does not convert"),
    ],
)
def test_mismatches_are_refused_with_both_types_and_the_fix(dpus, call, error, message) -> None:
    with pytest.raises(error, match=message) as info:
        call(dpus)
    assert "raw=True" in str(info.value) or "fit" in str(info.value)


def test_raw_moves_bytes_in_both_directions(dpus: pim.DpuSet) -> None:
    dpus.broadcast("n", np.float32(1.0), raw=True)
    with pytest.raises(pim.SymbolTypeError, match="raw=True"):
        dpus.gather("n", np.float32)  # typed reads, as typed writes
    assert dpus.gather("n", np.float32, raw=True).tolist() == [[1.0]] * 8
    assert dpus.gather("n").tolist() == [0x3F800000] * 8


def test_gather_pad_mirrors_scatter_pad(dpus: pim.DpuSet) -> None:
    dpus.broadcast("blocks", np.arange(64, dtype=np.int32))
    with pytest.raises(pim.DpuAccessError, match="multiples of 8"):
        dpus.gather("blocks", shape=3)
    three = dpus.gather("blocks", shape=3, pad=True)
    assert three.shape == (8, 3) and three[5].tolist() == [0, 1, 2]


def test_without_debug_information_the_caller_names_the_dtype() -> None:
    program = pim.build_program(KERNEL, nr_tasklets=1, name="types_nodebug", debug=False)
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        with pytest.raises(pim.SymbolTypeError, match="needs dtype="):
            dpus.gather("n")
        assert dpus.gather("n", np.uint32).shape == (2, 1)
        with pytest.raises(TypeError, match="needs dtype="):
            dpus.gather(pim.DPU_MRAM_HEAP_POINTER_NAME)
