"""Errors of asynchronous work are never lost and never reported twice (issue 27, item 2;
the rules are in pyupmem.dpus.asynchrony's docstring):

- a fault in queued work makes every later queued result on those ranks raise (a
  PendingResultError chained to the DpuFaultError), never the faulted DPUs' memory;
- leaving a DpuSet's ``with`` block, or free(), raises an error nobody was told of; an
  exception already leaving the block goes on, with a note naming it;
- a fault already raised, or DPUs the user stopped (stop(), Ctrl-C), is not reported again.

No test depends on the machine's speed: the work is held back by a callback that waits on
an event the test sets, a kernel that spins runs until stop(), and "the launch has ended"
is read from status(), which reports nothing."""

from __future__ import annotations

import _thread
import sys
import threading

import numpy as np
import pytest

import pyupmem as pim

KERNEL = r"""
#include <defs.h>
#include <mram.h>
#include <stdint.h>
__host volatile uint32_t mode;  /* 0: finish, 1: fault, 2: spin until stopped */
__host uint64_t result;
__mram_noinit uint64_t mram_out[2];
int main(void) {
    if (me() != 0)
        return 0;
    if (mode == 1)
        __builtin_trap();
    while (mode == 2) {}
    result = 42;
    return 0;
}
"""


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=2, name="async_errors_kernel")


def _ended(group: pim.DpuGroup) -> None:
    """Wait until the launch of ``group`` has ended, through status() (which reports no
    fault: it only tells). Polling, with no time limit tied to the machine's speed."""
    idle = threading.Event()
    while not group.status().done:
        idle.wait(0.005)


def _faulted(dpus: pim.DpuSet, program: pim.Program) -> None:
    """Launch ``dpus`` asynchronously on a kernel that faults, and wait until it has."""
    dpus.load(program)
    dpus.broadcast("mode", 1)
    dpus.launch(asynchronous=True)
    _ended(dpus)
    assert dpus.status() == pim.DpuStatus(True, True)


def _held(dpus: pim.DpuGroup) -> threading.Event:
    """Hold the queue of ``dpus`` with a callback until the returned event is set."""
    release = threading.Event()
    dpus.callback(lambda _: release.wait(60))
    return release


def test_a_gather_queued_behind_a_faulted_launch_raises_not_hands_out(program) -> None:
    with pim.DpuSet(2) as dpus:
        _faulted(dpus, program)
        pending = dpus.gather("result", asynchronous=True)
        with pytest.raises(pim.PendingResultError, match="DPU_ERR_DPU_FAULT") as info:
            pending.result()
        fault = info.value.__cause__
        assert isinstance(fault, pim.DpuFaultError) and set(fault.faults) == {0, 1}
        with pytest.raises(pim.PendingResultError):
            np.asarray(pending)  # every way of reading it
        with pytest.raises(pim.DpuFaultError) as synced:
            dpus.sync()
        assert synced.value is fault  # the one error, raised by sync
        # Reported now: work queued after it runs, and reads the faulted DPUs on purpose.
        assert dpus.gather("result", asynchronous=True).result().shape == (2,)
    # Leaving the block raised nothing: the fault was reported once, by sync().


def test_every_later_queued_result_raises_after_a_fault(program) -> None:
    ran: list[str] = []
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        dpus.broadcast("mode", 1)
        release = _held(dpus)
        dpus.launch(asynchronous=True)  # queued behind the held callback
        first = dpus.gather("result", asynchronous=True)
        dpus.callback(lambda _: ran.append("callback"))
        dpus.broadcast("mode", 0, asynchronous=True)
        dpus.launch(asynchronous=True)
        second = dpus[1].gather("result", asynchronous=True)
        release.set()
        causes = []
        for pending in (first, second):
            with pytest.raises(pim.PendingResultError) as info:
                pending.result()
            causes.append(info.value.__cause__)
        assert isinstance(causes[0], pim.DpuFaultError) and causes[1] is causes[0]
        with pytest.raises(pim.DpuFaultError, match="operations queued after it were not done"):
            dpus.sync()
        assert ran == []  # the callback queued after the fault never ran


def test_leaving_the_block_raises_a_fault_nobody_reported(program) -> None:
    with pytest.raises(pim.DpuFaultError, match="DPU_ERR_DPU_FAULT") as info:
        with pim.DpuSet(2) as dpus:
            _faulted(dpus, program)  # status() told of it; nothing raised it
    assert dpus.closed and set(info.value.faults) == {0, 1}
    assert "no sync() reported it" in " ".join(info.value.__notes__)


def test_free_raises_an_unreported_fault_once(program) -> None:
    dpus = pim.DpuSet(1)
    _faulted(dpus, program)
    with pytest.raises(pim.DpuFaultError):
        dpus.free()
    assert dpus.closed
    dpus.free()  # freed already: nothing more


def test_leaving_the_block_raises_an_unreported_error_of_queued_work(program) -> None:
    def broken(_: object) -> None:
        raise ValueError("a callback's own bug")

    with pytest.raises(ValueError, match="a callback's own bug"):
        with pim.DpuSet(1) as dpus:
            dpus.load(program)
            dpus.callback(broken)
            dpus.callback(lambda _: None)  # behind it: dropped
            _ended(dpus)  # the queue has run: status() counts queued work as not done


def test_a_fault_reported_through_the_queue_is_raised_once_on_leaving(program) -> None:
    with pytest.raises(pim.DpuFaultError) as info:
        with pim.DpuSet(2) as dpus:
            _faulted(dpus, program)
            pending = dpus.gather("result", asynchronous=True)
            with pytest.raises(pim.PendingResultError):
                pending.result()
    assert "raised by work queued with asynchronous=True" in " ".join(info.value.__notes__)


def test_an_exception_leaving_the_block_goes_on_with_a_note(program) -> None:
    with pytest.raises(RuntimeError, match="the user's own error") as info:
        with pim.DpuSet(2) as dpus:
            _faulted(dpus, program)
            raise RuntimeError("the user's own error")
    notes = " ".join(info.value.__notes__)
    assert "freeing the DPU set also raised DpuFaultError" in notes
    assert dpus.closed


@pytest.mark.parametrize("how", ["sync", "launch", "load", "stop"])
def test_a_reported_or_stopped_fault_is_not_reported_again(program, how) -> None:
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        dpus.broadcast("mode", 1)
        if how == "launch":
            with pytest.raises(pim.DpuFaultError):
                dpus.launch()  # a synchronous launch raises its fault itself
        else:
            dpus.launch(asynchronous=True)
            _ended(dpus)
            if how == "sync":
                with pytest.raises(pim.DpuFaultError):
                    dpus.sync()
            elif how == "load":
                dpus.load(program)  # a new load clears the fault
            else:
                dpus.stop()
    # Leaving the block raised nothing.


def test_stopped_dpus_and_their_dropped_work_are_not_reported(program) -> None:
    with pim.DpuSet(2) as dpus:
        dpus.load(program)
        dpus.broadcast("mode", 2)
        dpus.launch(asynchronous=True)  # spins until stopped
        pending = dpus.gather("result", asynchronous=True)
        dpus.stop()
        with pytest.raises(pim.PendingResultError, match="dropped") as info:
            pending.result()
        assert not isinstance(info.value.__cause__, pim.DpuError)
        dpus.sync()  # nothing to report


def _interrupt_main_once_in(function: str) -> threading.Thread:
    """A thread that sends Ctrl-C to the main thread once it is inside ``function``."""
    main = threading.main_thread().ident

    def watch() -> None:
        poll = threading.Event()
        while True:
            frame = sys._current_frames().get(main)
            while frame is not None and frame.f_code.co_name != function:
                frame = frame.f_back
            if frame is not None:
                _thread.interrupt_main()
                return
            poll.wait(0.005)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    return watcher


@pytest.mark.usefixtures("ctrl_c_raises")
def test_ctrl_c_during_sync_stops_the_dpus_and_reports_nothing_more(program) -> None:
    with pytest.raises(KeyboardInterrupt) as info:
        with pim.DpuSet(2) as dpus:
            dpus.load(program)
            dpus.broadcast("mode", 2)
            dpus.launch(asynchronous=True)  # spins until stopped
            pending = dpus.gather("result", asynchronous=True)
            _interrupt_main_once_in("_settle_queue")
            dpus.sync()
    assert not getattr(info.value, "__notes__", None)
    assert dpus.closed
    with pytest.raises(pim.PendingResultError):
        pending.result()


def test_a_fault_on_one_rank_raises_that_rank_s_queued_results_only(program) -> None:
    with pim.DpuSet(nr_ranks=2) as dpus:
        dpus.load(program)
        rank0, rank1 = dpus.ranks
        rank0.broadcast("mode", 1)
        rank1.broadcast("mode", 0)
        dpus.launch(asynchronous=True)
        _ended(dpus)
        fine = rank1.gather("result", asynchronous=True)
        assert fine.result().tolist() == [42] * len(rank1)  # rank 1 did not fault
        lost = rank0.gather("result", asynchronous=True)
        with pytest.raises(pim.PendingResultError) as info:
            lost.result()
        assert set(info.value.__cause__.faults) == set(range(len(rank0)))
        rank1.sync()  # rank 1's queue met no error
        with pytest.raises(pim.DpuFaultError):
            rank0.sync()


def test_a_pending_result_error_leaving_the_block_is_not_noted_twice(program) -> None:
    with pytest.raises(pim.PendingResultError) as info:
        with pim.DpuSet(1) as dpus:
            _faulted(dpus, program)
            dpus.gather("result", asynchronous=True).result()
    assert isinstance(info.value.__cause__, pim.DpuFaultError)  # the fault, said once
    assert not getattr(info.value, "__notes__", None)


@pytest.mark.parametrize(
    "read",
    [
        lambda d: d.gather("result"),
        lambda d: d.read("result"),
        lambda d: d.gather_blocks("mram_out", [[np.zeros(8, np.uint8)] for _ in d]),
    ],
    ids=["gather", "read", "gather_blocks"],
)
def test_a_synchronous_read_after_an_unreported_fault_raises_it(program, read) -> None:
    with pim.DpuSet(1, scatter_gather=True) as dpus:
        _faulted(dpus, program)
        with pytest.raises(pim.DpuFaultError):
            read(dpus)
        read(dpus)  # reported now: the faulted DPUs' memory is the caller's to read
    # Leaving the block raised nothing: the read reported it.


def test_a_fault_is_reported_per_dpu(program) -> None:
    with pytest.raises(pim.DpuFaultError) as info:
        with pim.DpuSet(2) as dpus:
            _faulted(dpus, program)
            with pytest.raises(pim.DpuFaultError) as first:
                dpus[1].read("result")
            assert list(first.value.faults) == [1]
    assert list(info.value.faults) == [0]  # DPU 0's fault: nothing reported it
