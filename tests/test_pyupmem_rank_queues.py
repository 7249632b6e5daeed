"""Asynchronous work is queued per rank, as in the SDK: work on rank 0 goes on while rank 1
runs a long launch, a set-wide sync waits for both, and an error on one rank is raised by
that rank's sync (or the set's), not by the other rank's."""

from __future__ import annotations

import time

import numpy as np
import pytest
from test_pyupmem_async import KERNEL, _loops_for

import pyupmem as pim


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=2, name="rank_queue_kernel")


@pytest.fixture(scope="module")
def long_loops(program: pim.Program) -> int:
    return min(_loops_for(1.5, program), 2**32 - 1)  # loops is a uint32_t


def _busy_rank1(dpus: pim.DpuSet, loops: int) -> None:
    """Rank 1 runs a long launch (one DPU loops), with a second launch queued behind it."""
    work = np.zeros(len(dpus), dtype=np.uint32)
    work[64] = loops
    dpus.scatter("loops", work)
    dpus.broadcast("value", 1)
    rank1 = dpus.ranks[1]
    rank1.launch(asynchronous=True)
    rank1.broadcast("value", 2, asynchronous=True)  # queued: rank 1 still runs
    rank1.launch(asynchronous=True)  # queued behind it: a long launch on rank 1's queue


def test_work_on_rank_0_does_not_wait_for_a_long_launch_on_rank_1(program, long_loops):
    with pim.DpuSet(nr_ranks=2) as dpus:
        dpus.load(program)
        _busy_rank1(dpus, long_loops)
        rank0, rank1 = dpus.ranks
        start = time.monotonic()
        rank0.broadcast("value", 5, asynchronous=True)
        rank0.launch(asynchronous=True)
        got = rank0.gather("result", asynchronous=True)
        rank0.sync()
        took = time.monotonic() - start
        assert np.asarray(got).tolist() == [16] * 64
        assert not rank1.status().done, f"rank 1 finished first (rank 0 took {took:.2f} s)"
        late = rank1.gather("result", asynchronous=True)
        dpus.sync()  # set-wide: waits for rank 1's queue and DPUs too
        assert rank1.status() == pim.DpuStatus(True, False)
        assert np.asarray(late).tolist() == [7] * 64  # after the second launch (value 2)


def test_a_set_wide_call_waits_for_every_rank(program, long_loops):
    with pim.DpuSet(nr_ranks=2) as dpus:
        dpus.load(program)
        _busy_rank1(dpus, long_loops)
        both = dpus.gather("result", asynchronous=True)  # after rank 1's queued launch
        assert not both.done()
        values = dpus.gather("value")  # synchronous: waits for both ranks' queues
        assert both.done() and values.tolist() == [1] * 64 + [2] * 64
        assert np.asarray(both).tolist() == [0] * 64 + [7] * 64  # rank 0 never launched


def test_an_error_on_one_rank_is_raised_by_that_ranks_sync(program):
    def fails(part: object) -> None:
        raise ValueError("boom on rank 1")

    with pim.DpuSet(nr_ranks=2) as dpus:
        dpus.load(program)
        rank0, rank1 = dpus.ranks
        rank1.callback(fails)
        rank1.broadcast("value", 9, asynchronous=True)  # dropped: behind the error
        rank0.broadcast("value", 3, asynchronous=True)  # another rank: still done
        rank0.sync()  # rank 0's queue met no error
        assert rank0.gather("value").tolist() == [3] * 64
        with pytest.raises(ValueError, match="boom on rank 1"):
            rank1.sync()
        rank1.sync()  # reported once
        assert rank1.gather("value").tolist() == [0] * 64

        rank1.callback(fails)
        rank0.sync()
        with pytest.raises(ValueError, match="boom on rank 1"):
            dpus.sync()  # the set-wide sync reports every rank's errors
        dpus.sync()


def test_set_wide_work_after_an_error_on_one_rank_is_dropped(program):
    with pim.DpuSet(nr_ranks=2) as dpus:
        dpus.load(program)
        dpus.ranks[1].callback(lambda part: 1 / 0)
        pending = dpus.gather("value", asynchronous=True)
        with pytest.raises(ZeroDivisionError):
            dpus.sync()
        with pytest.raises(pim.PyUpmemError, match="was not done"):
            pending.result()
