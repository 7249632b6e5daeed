"""Tasklets interleave as on the hardware (UPMEM_ABI.md section 4): a DMA lets the other
tasklets run, tasklets released together take turns, a spin-wait on WRAM makes progress,
runs are deterministic, and PYUPMEM_EMU_SCHEDULE=shuffle:SEED varies the interleaving so
that a racy program shows its race. Also the SDK's barrier and mutex layouts."""

import pytest
from emu_support import build_dpu, build_host, run

TASKLETS = 16


def run_mode(mode: int, nr_dpus: int = 1, tasklets: int = TASKLETS, profile: str = "",
             flags: tuple[str, ...] = (), **env: str):
    dpu = build_dpu("interleaving.c", "-g", f"-DNR_TASKLETS={tasklets}", *flags)
    result = run(
        [build_host("run_interleaving.c"), dpu, mode, nr_dpus, tasklets, profile], timeout=60, **env
    )
    assert "launch=0" in result.stdout, result.stdout + result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("result=")]
    assert len(rows) == nr_dpus
    return [dict(field.split("=") for field in row.split()) for row in rows]


def test_count_after_barrier_gives_the_hardware_result():
    """Every tasklet reads the counter before the last one, held up by its own DMA, updates it."""
    (dpu,) = run_mode(1)
    assert dpu["seen"] == ",".join(["0"] * TASKLETS)
    assert dpu["result"] == str(TASKLETS)


def test_spin_wait_on_a_wram_flag_terminates():
    (dpu,) = run_mode(2)
    assert dpu["result"] == "1"


def test_a_tasklet_that_reaches_its_switch_points_is_not_preempted():
    """The preemption timer (CPU time) only interrupts a tasklet that passed no switch point
    in a whole period: one interrupted mid-stretch would let another run where wall time
    says, and the modelled times would change from run to run. Built without cost counting,
    tasklet 0's compute takes the CPU's time while its clock stands still, so nearly every
    tick of the timer lands in it; tasklet 1 must still only see it at its DMAs."""
    (dpu,) = run_mode(7, tasklets=2, flags=("-fpyupmem-no-cost",))
    assert dpu["result"] == "0"
    assert int(dpu["seen"].split(",")[1]) > 0  # tasklet 1 ran, at tasklet 0's DMAs


def test_each_tasklet_keeps_its_own_floating_point_rounding_mode():
    """A tasklet switch saves and restores MXCSR and the x87 control word, so a mode one
    tasklet sets stays its own across its DMAs, and the others keep theirs."""
    (dpu,) = run_mode(8)
    assert dpu["result"] == "0"  # no tasklet found its modes changed after a switch
    nearest_or_up, down_or_zero = "1051372203", "1051372202"  # 0x3eaaaaab, 0x3eaaaaaa
    expected = [nearest_or_up, down_or_zero, nearest_or_up, down_or_zero]
    assert dpu["seen"].split(",") == [expected[t % 4] for t in range(TASKLETS)]


def test_default_schedule_is_deterministic():
    first = run_mode(3, nr_dpus=4)
    assert len({row["result"] for row in first}) == 1  # every DPU interleaves the same way
    assert run_mode(3, nr_dpus=4) == first
    # Lost updates: the tasklets read the counter in turn before any of them writes it.
    assert int(first[0]["result"]) < TASKLETS * 8


def test_shuffle_schedule_exposes_a_race():
    results = {
        run_mode(3, PYUPMEM_EMU_SCHEDULE=f"shuffle:{seed}")[0]["result"] for seed in range(8)
    }
    assert len(results) > 1, results
    # The same seed gives the same interleaving, from the environment or the profile.
    again = run_mode(3, PYUPMEM_EMU_SCHEDULE="shuffle:3")
    assert again == run_mode(3, profile="emuSchedule=shuffle:3")


def test_shuffle_schedule_leaves_a_race_free_program_alone():
    for seed in range(8):
        (dpu,) = run_mode(4, PYUPMEM_EMU_SCHEDULE=f"shuffle:{seed}")
        assert dpu["result"] == str(TASKLETS * 8)


@pytest.mark.parametrize("schedule", ["roundrobin", "shuffle:1"])
def test_barrier_built_at_run_time(schedule):
    (dpu,) = run_mode(5, profile=f"emuSchedule={schedule}")
    assert dpu["result"] == "0"
    assert dpu["seen"] == ",".join(["2"] * TASKLETS)


@pytest.mark.parametrize("schedule", ["roundrobin", "shuffle:2"])
def test_byte_array_of_mutexes_neighbours_taken_at_once(schedule):
    (dpu,) = run_mode(6, profile=f"emuSchedule={schedule}")
    # Every tasklet added 1 to two counters per round, each under its own byte-mutex.
    assert dpu["result"] == str(TASKLETS * 8 * 2)
    assert dpu["touched"] == "0"  # locking never wrote the mutex bytes


def test_one_tasklet_runs_every_pattern():
    expected = {1: ("1", "0"), 3: ("8", "0"), 4: ("8", "0"), 5: ("0", "2")}  # (result, seen)
    for mode, (result, seen) in expected.items():
        (dpu,) = run_mode(mode, tasklets=1)
        assert (dpu["result"], dpu["seen"]) == (result, seen), mode


def test_released_together_tasklet_0_takes_a_mutex_first():
    """The pipeline issues the tasklets' first instructions in turn (tasklet t at cycle t),
    so with equal code tasklet 0 reaches a mutex first, as on a DPU (the SDK's mutex example
    relies on it), and the others follow in order."""
    import numpy as np

    import pyupmem as pim

    source = """
    #include <stdint.h>
    #include <defs.h>
    #include <mutex.h>
    MUTEX_INIT(lock);
    __host uint32_t order[NR_TASKLETS];
    uint32_t next;
    int main(void)
    {
        mutex_lock(lock);
        order[next++] = me();
        mutex_unlock(lock);
        return 0;
    }
    """
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(pim.build_program(source, nr_tasklets=16))
        dpus.launch()
        assert list(dpus.gather("order", np.uint32, 16)[0]) == list(range(16))
