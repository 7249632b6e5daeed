"""The SDK's Python module on the emulator's libdpu and pyupmem's compatible module agree,
with each other and with the SDK's C semantics, on three points:

- a copy from every DPU into a list of buffers is one transfer (``dpu_prepare_xfer`` per
  DPU, one ``dpu_push_xfer``), not one per DPU;
- a callback run once for the whole set gets the index ``0xFFFFFFFF``, as ``dpu_callback``
  gives it;
- a checkpoint holds the DPU's whole WRAM (16,384 words) and MRAM; the registers and IRAM,
  which the emulator does not have, give ``DPU_ERR_INTERNAL``.

Each script runs twice: on the compatible module, and as the SDK's module runs it, by the
same libdpu calls made through ctypes (``dpu.ffi``'s functions)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import pyupmem as pim
from pyupmem.driver import libdpu as C
from pyupmem.sdk_compat import DpuError, DpuSet, ffi

SOURCE = """
#include <stdint.h>
#include <defs.h>
__host uint64_t values[16];
__host uint32_t launches;
int main(void)
{
    for (int i = 0; i < 16; i++)
        values[i] += i;
    launches++;
    return 0;
}
"""
NR_DPUS = 8
SIZE = 16 * 8


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(SOURCE, nr_tasklets=1)


def _dpu_cpu_seconds(node) -> float:
    return node.phase_seconds(estimated=True)["DPU-CPU"]


def _inputs() -> list[bytearray]:
    return [bytearray(np.full(16, 100 * d, np.uint64).tobytes()) for d in range(NR_DPUS)]


def _expected(d: int) -> bytes:
    return (np.full(16, 100 * d, np.uint64) + np.arange(16, dtype=np.uint64)).tobytes()


def test_a_gather_into_buffers_is_one_transfer_on_both_paths(program):
    # The compatible module.
    with DpuSet(nr_dpus=NR_DPUS, binary=str(program.path)) as dpus:
        dpus.copy("values", _inputs())
        dpus.exec()
        outputs = [bytearray(SIZE) for _ in range(NR_DPUS)]
        before = _dpu_cpu_seconds(dpus._node)
        dpus.copy(outputs, "values")
        compat_seconds = _dpu_cpu_seconds(dpus._node) - before
        assert [bytes(out) for out in outputs] == [_expected(d) for d in range(NR_DPUS)]
    # As the SDK's module does it: one buffer prepared per DPU, one push.
    with pim.DpuSet(NR_DPUS, backend="emulator") as dpus:
        dpus.load(program)
        dpus.scatter("values", [np.frombuffer(b, np.uint64) for b in _inputs()])
        dpus.launch()
        outputs = [bytearray(SIZE) for _ in range(NR_DPUS)]
        buffers = [(ctypes.c_char * SIZE).from_buffer(out) for out in outputs]
        before = _dpu_cpu_seconds(dpus)
        for dpu, buffer in zip(C.iter_dpus(dpus._backend.lib, dpus._c), buffers, strict=True):
            assert ffi.dpu_prepare_xfer(dpu, ctypes.addressof(buffer)) == C.DPU_OK
        status = ffi.dpu_push_xfer(dpus._c, C.DPU_XFER_FROM_DPU, b"values", 0, SIZE, 0)
        assert status == C.DPU_OK
        sdk_seconds = _dpu_cpu_seconds(dpus) - before
        del buffers
        assert [bytes(out) for out in outputs] == [_expected(d) for d in range(NR_DPUS)]
        # one read per DPU costs more: the comparison can tell the two apart
        before = _dpu_cpu_seconds(dpus)
        for dpu in dpus:
            dpu.read("values", np.uint64, 16)
        per_dpu_seconds = _dpu_cpu_seconds(dpus) - before
    assert compat_seconds == pytest.approx(sdk_seconds, rel=1e-9)
    assert per_dpu_seconds > 2 * sdk_seconds


def test_a_gather_with_a_skipped_dpu_fills_the_others(program):
    with DpuSet(nr_dpus=NR_DPUS, binary=str(program.path)) as dpus:
        dpus.copy("values", _inputs())
        dpus.exec()
        outputs: list[bytearray | None] = [bytearray(SIZE) for _ in range(NR_DPUS)]
        outputs[3] = None
        dpus.copy(outputs, "values")
        for d, out in enumerate(outputs):
            assert out is None or bytes(out) == _expected(d)


def test_a_callback_once_for_the_set_gets_index_0xffffffff_on_both_paths(program):
    def indices_compat(nr_dpus: int, one_dpu: bool = False, **options) -> list[int]:
        seen: list[int] = []
        with DpuSet(nr_dpus=nr_dpus, binary=str(program.path)) as dpus:
            target = dpus.dpus()[0] if one_dpu else dpus
            target.call(lambda _set, index, arg: arg.append(index), seen, **options)
        return seen

    def indices_sdk(nr_dpus: int, flags: int, one_dpu: bool = False) -> list[int]:
        seen: list[int] = []

        @C.dpu_callback_fn
        def record(_set, index, _arg):
            seen.append(index)
            return C.DPU_OK

        with pim.DpuSet(nr_dpus, backend="emulator") as dpus:
            dpus.load(program)
            target = next(C.iter_dpus(dpus._backend.lib, dpus._c)) if one_dpu else dpus._c
            assert ffi.dpu_callback(target, record, None, flags) == C.DPU_OK
        return seen

    single = C.DPU_CALLBACK_SINGLE_CALL
    assert indices_compat(4, single_call=True) == indices_sdk(4, single) == [0xFFFFFFFF]
    # one DPU of a set (DPU_SET_DPU): called once, with the DPU itself
    assert indices_compat(4, one_dpu=True) == indices_sdk(4, 0, one_dpu=True) == [0xFFFFFFFF]
    # a set of whole ranks (a one-DPU allocation too): once per rank, with its index
    assert indices_compat(4) == indices_sdk(4, 0) == [0]
    assert indices_compat(1) == indices_sdk(1, 0) == [0]


def test_a_checkpoint_holds_the_whole_wram_and_mram_or_says_it_cannot(program):
    with DpuSet(nr_dpus=1, binary=str(program.path)) as dpus:
        dpus.copy("values", bytearray(np.arange(16, dtype=np.uint64).tobytes()))
        context = dpus.checkpoint(iram=False)
        assert context.wram_words == 16_384 and context.mram_bytes == 64 << 20
        address = dpus._node.symbol("values").address
        saved = context.wram()[address : address + SIZE]
        assert saved == np.arange(16, dtype=np.uint64).tobytes()
        assert context.wram()[:8] == bytes(8)  # the runtime's zero at WRAM 0
        dpus.exec()  # changes values and launches
        back = bytearray(SIZE)
        dpus.copy(back, "values")
        assert bytes(back) != saved
        dpus.restore(context, iram=False)
        dpus.copy(back, "values")
        assert bytes(back) == saved
        with pytest.raises(DpuError, match="no DPU registers or IRAM") as caught:
            dpus.checkpoint()
        assert caught.value.code == C.DPU_ERR_INTERNAL

    # The same through the C library, as the SDK's module calls it.
    from pyupmem.sdk_compat.driver import _checkpoint_call, _checkpoint_flags, _Context

    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        save = _checkpoint_call("dpu_checkpoint_save")
        context = _Context()
        assert save(dpus._c, _checkpoint_flags(True, True, True), ctypes.byref(context)) == 1
        assert save(dpus._c, _checkpoint_flags(False, True, True), ctypes.byref(context)) == 0
        assert context.info.wram_size == 16_384
        _checkpoint_call("dpu_checkpoint_free")(ctypes.byref(context))
