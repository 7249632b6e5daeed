"""Asynchronous work is queued per rank, as in the SDK: work on rank 0 goes on while rank 1
runs a long launch, a set-wide sync waits for both, and an error on one rank is raised by
that rank's sync (or the set's), not by the other rank's."""

from __future__ import annotations

import numpy as np
import pytest
from dpu_gate import Gate
from test_pyupmem_async import KERNEL

import pyupmem as pim


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=2, name="rank_queue_kernel")


def _busy_rank1(dpus: pim.DpuSet) -> Gate:
    """Rank 1 runs a launch that lasts until the test opens the returned gate (one DPU
    waits at it), with a second launch queued behind it."""
    gate = Gate(dpus)
    work = np.zeros(len(dpus), dtype=np.uint32)
    work[64] = 1
    dpus.scatter("wait", work)
    dpus.broadcast("value", 1)
    rank1 = dpus.ranks[1]
    rank1.launch(asynchronous=True)
    rank1.broadcast("value", 2, asynchronous=True)  # queued: rank 1 still runs
    rank1.launch(asynchronous=True)  # queued behind it: a long launch on rank 1's queue
    return gate


def test_work_on_rank_0_does_not_wait_for_a_long_launch_on_rank_1(program):
    with pim.DpuSet(nr_ranks=2) as dpus:
        dpus.load(program)
        gate = _busy_rank1(dpus)
        rank0, rank1 = dpus.ranks
        rank0.broadcast("value", 5, asynchronous=True)
        rank0.launch(asynchronous=True)
        got = rank0.gather("result", asynchronous=True)
        rank0.sync()  # would never return if it waited for rank 1: the gate is still shut
        assert np.asarray(got).tolist() == [16] * 64
        assert not rank1.status().done
        late = rank1.gather("result", asynchronous=True)
        gate.open()
        dpus.sync()  # set-wide: waits for rank 1's queue and DPUs too
        assert rank1.status() == pim.DpuStatus(True, False)
        assert np.asarray(late).tolist() == [7] * 64  # after the second launch (value 2)


def test_a_set_wide_call_waits_for_every_rank(program):
    with pim.DpuSet(nr_ranks=2) as dpus:
        dpus.load(program)
        gate = _busy_rank1(dpus)
        both = dpus.gather("result", asynchronous=True)  # after rank 1's queued launch
        assert not both.done()
        gate.open()
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
