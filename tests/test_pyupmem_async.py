"""Asynchronous transfers and completion callbacks (pyupmem.dpus.asynchrony): work queued with
asynchronous=True runs in order after running launches, callbacks see its results,
buffers live until the work is done, errors come back through sync()."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import numpy as np
import pytest
from dpu_gate import GATE_C, Gate

import pyupmem as pim
from pyupmem.dpus.views import DpuSubset

KERNEL = (
    r"""
#include <defs.h>
#include <mram.h>
#include <stdint.h>
"""
    + GATE_C
    + r"""
__host uint32_t wait;  /* 1: the launch lasts until the test opens the gate */
__host uint32_t value;
__host uint32_t mode;
__host uint64_t result;
__mram_noinit uint8_t mram_buf[64];
int main(void) {
    if (me() != 0)
        return 0;
    if (mode == 1) {  /* an unaligned MRAM read: a fault in strict mode */
        uint64_t x[2];
        mram_read((__mram_ptr void *)((uintptr_t)mram_buf + 4), x, 8);
    }
    if (wait)
        wait_for_gate();
    result = (uint64_t)value * 3 + 1;
    return 0;
}
"""
)


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=2, name="async_kernel")


def _launch_behind_a_gate(dpus: pim.DpuSet) -> Gate:
    """Launches ``dpus`` asynchronously; they run until the test opens the returned gate."""
    gate = Gate(dpus)
    dpus.broadcast("wait", 1)
    dpus.launch(asynchronous=True)
    return gate


def test_gather_queued_after_an_async_launch_sees_the_results(program) -> None:
    seen: list[np.ndarray] = []
    with pim.DpuSet(8) as dpus:
        dpus.load(program)
        dpus.scatter("value", np.arange(8, dtype=np.uint32))
        gate = _launch_behind_a_gate(dpus)
        result = dpus.gather("result", asynchronous=True)
        dpus.callback(lambda s: seen.append(result.copy()))
        # Queued, not done: the DPUs still run and the call returned at once.
        assert not dpus.status().done
        assert not seen
        gate.open()
        dpus.sync()
        expected = np.arange(8) * 3 + 1
        assert result.tolist() == expected.tolist()
        assert len(seen) == 1 and seen[0].tolist() == expected.tolist()
        assert dpus.status() == pim.DpuStatus(True, False)


def test_a_whole_pipeline_queued_runs_in_order(program) -> None:
    order: list[str] = []
    with pim.DpuSet(4) as dpus:
        dpus.load(program)
        dpus.scatter("value", np.full(4, 5, dtype=np.uint32))
        gate = _launch_behind_a_gate(dpus)
        # While the first launch runs: new inputs, a second launch, its results.
        first = dpus.gather("result", asynchronous=True)
        dpus.callback(lambda s: order.append(f"first {first.tolist()}"))
        dpus.scatter("value", np.arange(10, 14, dtype=np.uint32), asynchronous=True)
        dpus.launch(asynchronous=True)
        second = dpus.gather("result", asynchronous=True)
        dpus.callback(lambda s: order.append(f"second {second.tolist()}"))
        assert order == []
        gate.open()  # stays open: the second launch goes through
        dpus.sync()
        assert order == ["first [16, 16, 16, 16]", "second [31, 34, 37, 40]"]


def test_synchronous_calls_wait_for_the_queued_work(program) -> None:
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        dpus.broadcast("value", 7)
        gate = _launch_behind_a_gate(dpus)
        dpus.broadcast("value", 1, asynchronous=True)
        # Opened from another thread while the gather below waits (or before: either way
        # the gather must come after the launch and the queued broadcast).
        opener = threading.Thread(target=gate.open)
        opener.start()
        # Synchronous: after the queued broadcast (so after the launch), not DPU_ERR_MRAM_BUSY.
        assert dpus.gather("result").tolist() == [22, 22]
        assert dpus.gather("value").tolist() == [1, 1]
        dpus.sync()
        opener.join()


def test_queued_buffers_live_until_the_work_is_done(program) -> None:
    with pim.DpuSet(4) as dpus:
        dpus.load(program)
        gate = _launch_behind_a_gate(dpus)
        values = np.arange(20, 24, dtype=np.uint32)
        alive = weakref.ref(values)
        dpus.scatter("value", values, asynchronous=True)
        dpus.write("wait", np.uint32(0), asynchronous=True)
        del values
        gc.collect()
        assert alive() is not None  # held by the queued scatter: the DPUs wait at the gate
        gate.open()
        dpus.sync()
        gc.collect()
        assert alive() is None  # released once it has run
        dpus.launch()
        assert dpus.gather("result").tolist() == [61, 64, 67, 70]


def test_callbacks_per_rank_and_on_parts(program) -> None:
    calls: list[object] = []
    with pim.DpuSet(nr_ranks=2) as dpus:
        dpus.load(program)
        dpus.callback(calls.append, per_rank=True)
        dpus.sync()
        # once per rank; the ranks' queues run independently, so in either order
        assert len(calls) == 2 and sorted(calls, key=dpus.ranks.index) == dpus.ranks
        calls.clear()
        dpus.callback(calls.append)
        dpus[3].callback(calls.append, per_rank=True)
        part = dpus[60:70]
        part.callback(calls.append, per_rank=True)
        dpus.sync()
        assert calls[0] is dpus  # set-wide: both ranks wait for it
        # Then each rank goes on by itself: rank 0 calls for DPU 3, then for its part of
        # 60..69; rank 1 for its part, in any order against rank 0.
        rank0 = [c for c in calls[1:] if c == dpus[3] or getattr(c, "positions", [0])[0] < 64]
        rank1 = [c for c in calls[1:] if c not in rank0]
        assert rank0[0] == dpus[3] and len(rank0) == 2 and len(rank1) == 1
        assert [type(rank0[1]), type(rank1[0])] == [DpuSubset, DpuSubset]
        assert [rank0[1].positions, rank1[0].positions] == [[60, 61, 62, 63], list(range(64, 70))]


def test_a_callback_runs_on_the_queue_thread_and_may_use_the_set(program) -> None:
    seen = {}
    with pim.DpuSet(3) as dpus:
        dpus.load(program)
        dpus.scatter("value", np.arange(3, dtype=np.uint32))
        gate = _launch_behind_a_gate(dpus)

        def done(s: pim.DpuSet) -> None:
            seen["thread"] = threading.current_thread() is not threading.main_thread()
            seen["result"] = s.gather("result").tolist()  # synchronous, inside the queue
            s.broadcast("value", 100)
            s.launch(asynchronous=True)
            s.gather("result", asynchronous=True, out=out)

        out = np.zeros(3, dtype=np.uint64)
        dpus.callback(done)
        gate.open()
        dpus.sync()
        assert seen == {"thread": True, "result": [1, 4, 7]}
        assert out.tolist() == [301, 301, 301]


def test_an_error_in_a_callback_is_raised_by_sync_and_later_work_is_dropped(program) -> None:
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        dpus.broadcast("value", 1)

        def fails(s: pim.DpuSet) -> None:
            raise ValueError("boom in the callback")

        dpus.callback(fails)
        dpus.broadcast("value", 9, asynchronous=True)
        with pytest.raises(ValueError, match="boom in the callback") as info:
            dpus.sync()
        notes = "\n".join(getattr(info.value, "__notes__", []))
        assert "asynchronous=True" in notes and "1 operations queued after it" in notes
        assert dpus.gather("value").tolist() == [1, 1]  # the later broadcast was not done
        dpus.sync()  # reported once
        dpus.broadcast("value", 2, asynchronous=True)
        dpus.sync()
        assert dpus.gather("value").tolist() == [2, 2]


def test_a_fault_before_queued_work_is_raised_by_sync(program) -> None:
    with pim.DpuSet(2, strict=True) as dpus:
        dpus.load(program)
        dpus.scatter("mode", np.array([0, 1], dtype=np.uint32))
        dpus.launch(asynchronous=True)
        dpus.gather("result", asynchronous=True)
        with pytest.raises(pim.DpuFaultError) as info:
            dpus.sync()
        assert list(info.value.faults) == [1]
        dpus.load(program)  # usable again
        dpus.broadcast("mode", 0)
        dpus.broadcast("value", 2)
        dpus.launch()
        assert dpus.gather("result").tolist() == [7, 7]


def test_sub_sets_queue_transfers(program) -> None:
    with pim.DpuSet(8) as dpus:
        dpus.load(program)
        dpus.broadcast("wait", 1)
        dpus.broadcast("value", 0)
        part = dpus[[1, 4, 6]]
        part.broadcast("wait", 0, asynchronous=True)
        part.scatter("value", np.array([1, 2, 3], dtype=np.uint32), asynchronous=True)
        part.launch(asynchronous=True)
        got = part.gather("result", asynchronous=True)
        part.sync()
        assert got.tolist() == [4, 7, 10]
        padded = dpus[0:2].gather("result", np.uint8, 6, pad=True, raw=True, asynchronous=True)
        dpus.sync()
        assert padded.shape == (2, 6)


def test_sync_timeout_with_queued_work_then_stop(program) -> None:
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        _launch_behind_a_gate(dpus)  # never opened
        dpus.gather("result", asynchronous=True)
        with pytest.raises(pim.DpuTimeoutError, match="still pending"):
            dpus.sync(timeout=0.1)
        dpus.stop()  # drops the queued gather and stops the DPUs
        assert dpus.status() == pim.DpuStatus(True, False)
        dpus.broadcast("wait", 0)
        dpus.broadcast("value", 3)
        dpus.launch()
        assert dpus.gather("result").tolist() == [10, 10]


def test_freeing_a_set_with_queued_work_does_not_wait_for_it(program) -> None:
    dpus = pim.DpuSet(2)
    dpus.load(program)
    _launch_behind_a_gate(dpus)  # never opened: only free() ends the launch
    dpus.gather("result", asynchronous=True)
    start = time.monotonic()
    dpus.free()
    assert time.monotonic() - start < 30  # waiting would be for ever: the gate stays shut
    assert dpus.closed


def test_callback_needs_a_callable(program) -> None:
    with pim.DpuSet(1) as dpus:
        with pytest.raises(pim.ArgumentTypeError, match="takes a callable"):
            dpus.callback("not a function")  # type: ignore[arg-type]
