"""Scatter-gather transfers from Python: DpuSet.scatter_blocks and gather_blocks over
dpu_push_sg_xfer, zero-copy, with the SDK's error codes."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from emu_support import PROGRAMS

import pyupmem as pim
from pyupmem.driver import libdpu as C
from pyupmem.errors import DpuAccessError, DpuSetError

N = 4  # DPUs


@pytest.fixture(scope="module")
def program():
    return pim.build_program(PROGRAMS / "sg_kernel.c")


def _blocks(seed: int) -> list[list[np.ndarray]]:
    """Per DPU: three blocks of 3, 5 and 8 uint64 words (128 bytes)."""
    rng = np.random.default_rng(seed)
    return [[rng.integers(0, 2**40, n, dtype=np.uint64) for n in (3, 5, 8)] for _ in range(N)]


def test_scatter_then_gather_round_trip(program):
    blocks = _blocks(1)
    with pim.DpuSet(N, scatter_gather=True) as dpus:
        assert "sgXferEnable=true" in dpus.profile
        dpus.load(program)
        dpus.scatter_blocks("area", blocks)
        direct = dpus.gather("area", np.uint64, 16)
        np.testing.assert_array_equal(direct, np.stack([np.concatenate(b) for b in blocks]))
        dpus.broadcast("increment", np.uint32(7))
        dpus.broadcast("words", np.uint32(16))
        dpus.launch()
        # Gather into differently cut blocks: 2 + 14 words, filled in place.
        out = [[np.zeros(2, np.uint64), np.zeros(14, np.uint64)] for _ in range(N)]
        dpus.gather_blocks("area", out)
    for d in range(N):
        np.testing.assert_array_equal(np.concatenate(out[d]), np.concatenate(blocks[d]) + 7)


def test_blocks_of_any_buffer_and_a_rank(program):
    with pim.DpuSet(N, scatter_gather=True) as dpus:
        dpus.load(program)
        rank = dpus.ranks[0]
        rank.scatter_blocks(
            "area", [[bytes(range(8)), bytearray(b"x" * 8)] for _ in range(N)], offset=8
        )
        back = [[bytearray(16)] for _ in range(N)]
        rank.gather_blocks("area", back, offset=8)
    assert all(b[0] == bytes(range(8)) + b"x" * 8 for b in back)


def test_shorter_shares_are_zero_filled_without_the_length_check(program):
    with pim.DpuSet(N, scatter_gather=True) as dpus:
        dpus.load(program)
        dpus.broadcast("area", np.full(8, 0xFF, np.uint64))
        shares = [[np.full(d + 1, d + 1, np.uint64)] for d in range(N)]
        dpus.scatter_blocks("area", shares, length=64, check_length=False)
        got = dpus.gather("area", np.uint64, 8)
    for d in range(N):
        assert list(got[d]) == [d + 1] * (d + 1) + [0] * (8 - d - 1)


def test_not_activated(program):
    with pim.DpuSet(N) as dpus:
        dpus.load(program)
        with pytest.raises(DpuSetError) as caught:
            dpus.scatter_blocks("area", _blocks(2))
    assert caught.value.code == C.DPU_ERR_SG_NOT_ACTIVATED == 41
    assert "scatter_gather=True" in str(caught.value)


def test_too_many_blocks(program):
    with pim.DpuSet(N, scatter_gather=2) as dpus:  # at most 2 blocks per DPU
        assert "sgXferMaxBlocksPerDpu=2" in dpus.profile
        dpus.load(program)
        with pytest.raises(DpuAccessError) as caught:
            dpus.scatter_blocks("area", _blocks(3))
    assert caught.value.code == C.DPU_ERR_SG_TOO_MANY_BLOCKS == 39
    assert not caught.value.before_call


def test_length_mismatch_and_not_mram(program):
    with pim.DpuSet(N, scatter_gather=True) as dpus:
        dpus.load(program)
        uneven = _blocks(4)
        uneven[1] = uneven[1][:2]
        with pytest.raises(DpuAccessError) as caught:
            dpus.scatter_blocks("area", uneven)
        assert caught.value.code == C.DPU_ERR_SG_LENGTH_MISMATCH == 40
        with pytest.raises(DpuAccessError) as caught:
            dpus.scatter_blocks("words", [[np.zeros(2, np.uint32)] for _ in range(N)])
        assert caught.value.code == C.DPU_ERR_SG_NOT_MRAM_SYMBOL == 42
        with pytest.raises(DpuSetError):
            dpus[0].scatter_blocks("area", [[np.zeros(2, np.uint64)]])


def test_library_codes_without_pythons_checks(program):
    """The emulator itself returns each code (the Python layer's checks bypassed)."""
    with pim.DpuSet(N, scatter_gather=True) as dpus:
        dpus.load(program)
        lib = dpus.backend.lib
        data = np.arange(16, dtype=np.uint64)

        def one_block(out, dpu_index, block_index, _args):
            if block_index:
                return False
            out[0].addr, out[0].length = data.ctypes.data, 120  # 8 bytes short
            return True

        callback = C.get_block_func_t(one_block)
        info = C.get_block_t(callback, None, 0)

        def push(symbol: bytes, flags: int, length: int = 128) -> int:
            return lib.dpu_push_sg_xfer(
                dpus._c, C.DPU_XFER_TO_DPU, symbol, 0, length, ctypes.byref(info), flags
            )

        assert push(b"area", C.DPU_SG_XFER_DEFAULT) == C.DPU_ERR_SG_LENGTH_MISMATCH
        assert push(b"words", C.DPU_SG_XFER_DEFAULT, 8) == C.DPU_ERR_SG_NOT_MRAM_SYMBOL
        assert push(b"area", C.DPU_SG_XFER_DISABLE_LENGTH_CHECK) == C.DPU_OK
        assert list(dpus.gather("area", np.uint64, 16)[2]) == list(range(15)) + [0]


def test_fifo_calls_return_the_documented_error():
    with pim.DpuSet(1) as dpus:
        lib = dpus.backend.lib
        assert lib.dpu_fifo_push_xfer(dpus._c, None, C.DPU_XFER_DEFAULT) == C.DPU_ERR_INTERNAL
        assert lib.dpu_fifo_prepare_xfer(dpus._c, None, None) == C.DPU_ERR_INTERNAL
