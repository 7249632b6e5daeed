"""Transfers are typed in both directions, and the host data of asynchronous transfers is
safe: inputs are read-only until sent, and an asynchronous gather's result cannot be read
before it is filled (pyupmem.dpus.typecheck, pyupmem.dpus.queued_data)."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from dpu_gate import GATE_C, Gate

import pyupmem as pim

KERNEL = r"""
#include <defs.h>
#include <stdint.h>
""" + GATE_C + r"""
__host uint32_t wait;
__host int32_t values[16];
__host int8_t small[64];
__host uint8_t storage[64];
__host int32_t copy[16];
int main(void) {
    if (me() != 0)
        return 0;
    if (wait)
        wait_for_gate();
    for (int i = 0; i < 16; i++)
        copy[i] = values[i] * 2;
    return 0;
}
"""


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=1, name="queued_data_kernel")


def _launch_behind_a_gate(dpus: pim.DpuSet) -> Gate:
    """Launches ``dpus`` asynchronously; they run until the test opens the returned gate."""
    gate = Gate(dpus)
    dpus.broadcast("wait", 1)
    dpus.launch(asynchronous=True)
    return gate


def test_gather_and_read_refuse_another_dtype_as_scatter_does(program):
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        dpus.broadcast("values", np.arange(16, dtype=np.int32))
        with pytest.raises(pim.SymbolTypeError, match="scatter: float32 data into 'values'"):
            dpus.scatter("values", np.zeros((2, 16), np.float32))
        with pytest.raises(pim.SymbolTypeError, match="gather: reading float32 from 'values'"):
            dpus.gather("values", np.float32)
        with pytest.raises(pim.SymbolTypeError, match="read: reading uint32 from 'values'"):
            dpus[0].read("values", np.uint32)
        with pytest.raises(pim.SymbolTypeError, match="out= of dtype float32"):
            dpus.gather("values", out=np.zeros((2, 16), np.float32))
        # The explicit escapes: raw=True, and a byte buffer for the bytes as they are.
        assert dpus.gather("values", np.float32, raw=True).view(np.int32)[1, 5] == 5
        assert dpus[0].read("values", np.uint32, raw=True)[7] == 7
        raw = np.zeros((2, 64), np.uint8)
        dpus.gather("values", out=raw)
        assert raw[1].view(np.int32).tolist() == list(range(16))
        assert dpus.gather("values", np.int32).dtype == np.int32  # its own dtype: fine


def test_float64_data_into_an_int8_array_is_refused_unless_raw(program):
    with pim.DpuSet(1) as dpus:
        dpus.load(program)
        with pytest.raises(pim.SymbolTypeError, match="float64 data into 'small'"):
            dpus.broadcast("small", np.zeros(8, np.float64))
        with pytest.raises(pim.SymbolTypeError, match="reading float64 from 'small'"):
            dpus.gather("small", np.float64)
        # uint8_t arrays are raw storage: any data goes in and reads out as any dtype.
        dpus.write("storage", np.arange(4, dtype=np.int32))
        assert dpus.gather("storage", np.int32, 4)[0].tolist() == [0, 1, 2, 3]
        dpus.broadcast("storage", np.arange(64, dtype=np.uint8).reshape(8, 8))
        dpus.broadcast("small", b"\x01\x02\x03\x04")
        dpus.broadcast("small", np.full(8, 0.5, np.float64), raw=True)
        assert dpus[0].read("small")[:8].view(np.float64).tolist() == [0.5]
        assert dpus[0].read("storage").tolist() == list(range(64))


def test_an_array_queued_for_a_transfer_is_read_only_until_it_has_run(program):
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        gate = _launch_behind_a_gate(dpus)
        data = np.arange(32, dtype=np.int32)
        shares = data.reshape(2, 16)  # a view: its base is locked too
        same = np.full(16, 7, np.int32)
        dpus.scatter("values", shares, asynchronous=True)
        dpus.broadcast("copy", same, asynchronous=True)
        assert not (data.flags.writeable or shares.flags.writeable or same.flags.writeable)
        with pytest.raises(ValueError, match="read-only"):
            data[0] = 100  # would change what the queued scatter sends
        with pytest.raises(ValueError, match="read-only"):
            same[:] = 0
        gate.open()
        dpus.sync()
        assert data.flags.writeable and shares.flags.writeable and same.flags.writeable
        data[0] = 100  # allowed again, and too late to matter
        assert dpus.gather("values")[:, 0].tolist() == [0, 16]
        assert dpus.gather("copy")[0].tolist() == [7] * 16


def test_a_dropped_transfer_gives_its_array_back(program):
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        _launch_behind_a_gate(dpus)  # never opened: stop() ends the launch
        data = np.zeros((2, 16), np.int32)
        dpus.scatter("values", data, asynchronous=True)
        assert not data.flags.writeable
        dpus.stop()  # drops the queued scatter
        assert data.flags.writeable
        readonly = np.zeros(16, np.int32)
        readonly.flags.writeable = False
        dpus.broadcast("values", readonly, asynchronous=True)
        dpus.sync()
        assert not readonly.flags.writeable  # left as the caller had it


def test_an_asynchronous_gather_cannot_be_read_before_it_has_run(program):
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        dpus.broadcast("values", np.arange(16, dtype=np.int32))
        gate = _launch_behind_a_gate(dpus)
        opened = threading.Event()
        result = dpus.gather("copy", asynchronous=True)
        assert isinstance(result, pim.PendingArray) and not result.done()
        assert result.shape == (2, 16) and result.dtype == np.int32 and len(result) == 2
        assert "not done" in repr(result)
        with pytest.raises(pim.PendingResultError, match="has not run after 0.01 s"):
            result.result(timeout=0.01)
        # Reading the data waits for the gather: never the unfilled memory. The gate opens
        # from another thread, so the read below starts while the gather is still queued.
        def open_gate() -> None:
            opened.set()
            gate.open()

        opener = threading.Thread(target=open_gate)
        opener.start()
        assert result[1, 3] == 6
        assert opened.is_set()
        opener.join()
        assert result.done()
        assert (result + 1)[0, 0] == 1 and result.tolist()[0][15] == 30
        assert np.array_equal(result, np.arange(16) * 2 + np.zeros((2, 1), int))
        assert isinstance(result.result(), np.ndarray)


def test_reading_a_pending_gather_inside_the_queue_raises(program):
    seen: list[str] = []
    with pim.DpuSet(1) as dpus:
        dpus.load(program)
        gate = _launch_behind_a_gate(dpus)  # the callback runs after it, the gather set by then
        holder: dict[str, pim.PendingArray] = {}

        def early(_: object) -> None:
            try:
                holder["later"][0]
            except pim.PendingResultError as error:
                seen.append(str(error))

        dpus.callback(early)  # queued before the gather: it has not run then
        holder["later"] = dpus.gather("copy", asynchronous=True)
        gate.open()
        dpus.sync()
    assert seen and "read it in a callback queued after the gather" in seen[0]


def test_out_of_an_asynchronous_gather_is_read_only_until_filled(program):
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        gate = _launch_behind_a_gate(dpus)
        out = np.zeros((2, 16), np.int32)
        pending = dpus.gather("copy", out=out, asynchronous=True)
        assert not out.flags.writeable
        with pytest.raises(pim.DpuAccessError, match="still queued"):
            dpus.gather("copy", out=out, asynchronous=True)
        gate.open()
        assert pending.result() is out
        assert out.flags.writeable
