"""Running DPUs: sync(timeout=), stop(), Ctrl-C during sync, sub-sets."""

from __future__ import annotations

import _thread
import threading
import time

import numpy as np
import pytest

import pyupmem as pim

KERNEL = r"""
#include <defs.h>
#include <stdint.h>
__host volatile uint32_t spin;
__host uint32_t value;
__host uint64_t result;
int main(void) {
    if (me() == 0) {
        while (spin) {}
        result = (uint64_t)value + 1;
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=2, name="control_kernel")


def test_sync_timeout_on_a_spinning_kernel_then_stop_and_relaunch(program) -> None:
    with pim.DpuSet(4) as dpus:
        dpus.load(program)
        dpus.broadcast("spin", 1)
        dpus.launch(asynchronous=True)
        start = time.monotonic()
        with pytest.raises(pim.DpuTimeoutError, match="keep running") as info:
            dpus.sync(timeout=0.2)
        assert isinstance(info.value, TimeoutError)
        # At least the timeout; the upper bound only catches a sync that did not time out
        # (the kernel spins for ever), so it is far above any machine's scheduling delay.
        assert 0.2 <= time.monotonic() - start < 60
        assert not dpus.status().done  # they keep running
        dpus.stop()
        assert dpus.status() == pim.DpuStatus(True, False)
        dpus.broadcast("spin", 0)
        dpus.scatter("value", np.arange(4, dtype=np.uint32))
        dpus.launch()
        assert dpus.gather("result").tolist() == [1, 2, 3, 4]


@pytest.mark.usefixtures("ctrl_c_raises")
def test_ctrl_c_during_sync_stops_the_dpus(program) -> None:
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        dpus.broadcast("spin", 1)
        dpus.launch(asynchronous=True)
        timer = threading.Timer(0.3, _thread.interrupt_main)
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            dpus.sync()
        timer.join()
        assert dpus.status().done
        dpus.broadcast("spin", 0)
        dpus.broadcast("value", 41)
        dpus.launch()
        assert dpus.gather("result").tolist() == [42, 42]


def test_stop_on_a_backend_that_cannot(program, monkeypatch: pytest.MonkeyPatch) -> None:
    with pim.DpuSet(1) as dpus:
        dpus.load(program)
        monkeypatch.setattr(dpus.backend.lib, "extensions", [])
        with pytest.raises(pim.UnsupportedError, match="cannot stop DPUs") as info:
            dpus.stop()
        assert isinstance(info.value, NotImplementedError)


@pytest.mark.parametrize("count", [1, 64, 640])
def test_sub_sets_launch_and_transfer(program, count: int) -> None:
    with pim.DpuSet(count) as dpus:
        dpus.load(program)
        dpus.broadcast("spin", 0)
        dpus.broadcast("value", 0)
        for chosen in (dpus[0:count:2], dpus[[count - 1]], dpus[np.arange(count) % 3 == 0]):
            dpus.broadcast("value", 100)
            dpus.broadcast("result", np.uint64(0))
            positions = chosen.positions
            chosen.scatter("value", np.arange(len(chosen), dtype=np.uint32))
            chosen.launch()
            assert chosen.status().done
            result = dpus.gather("result")
            expected = np.zeros(count, np.uint64)
            expected[positions] = np.arange(len(chosen)) + 1
            assert np.array_equal(result, expected)
            assert np.array_equal(chosen.gather("result"), expected[positions])
            chosen.broadcast("value", 7)
            assert (dpus.gather("value")[positions] == 7).all()
            assert len(chosen.logs()) == len(chosen)


def test_a_sub_set_loads_and_stops(program) -> None:
    with pim.DpuSet(128) as dpus:
        dpus.load(program)
        part = dpus[64:128]
        part.load(program)
        part.broadcast("spin", 1)
        part.launch(asynchronous=True)
        with pytest.raises(TimeoutError):
            part.sync(timeout=0.1)
        part.stop()
        assert part.status().done
