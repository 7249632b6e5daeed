"""The time model, one rule at a time, on small kernels whose costs are known
(tests/emu_programs/timing.c): the pipeline (a tasklet issues one instruction every 11
cycles, the DPU one per cycle), DMA latency (alpha + beta * size on one engine), waiting
at a barrier for the others' modelled time, and the clock setting."""

import numpy as np
import pytest
from emu_support import build_dpu

import pyupmem as pim
from pyupmem import emu

pytestmark = pytest.mark.skipif(
    not emu.counts_costs(), reason="cost counting rewrites x86-64 assembly"
)
ROUNDS = 20_000


def launch(mode: int, tasklets: int, rounds: int = ROUNDS, profile: str = ""):
    """Runs `mode` on one DPU; returns (estimate, instructions, cycles_at_end)."""
    with pim.DpuSet(1, profile=profile, backend="emulator") as dpus:
        dpus.load(build_dpu("timing.c", f"-DNR_TASKLETS={tasklets}"))
        dpus.broadcast("mode", np.uint32(mode))
        dpus.broadcast("rounds", np.uint32(rounds))
        dpus.launch()
        instructions = dpus.gather("instructions", np.uint64, tasklets)[0]
        cycles = dpus.gather("cycles_at_end", np.uint64, tasklets)[0]
        return dpus.estimate(), instructions, cycles


def test_one_tasklet_issues_every_11_cycles():
    estimate, (instructions,), _ = launch(1, 1)
    assert estimate.counted
    assert instructions > 5 * ROUNDS  # the loop's instructions were counted
    # The launch is the counted instructions at 11 cycles each, plus the few before the
    # first and after the last performance-counter read.
    assert 11 * instructions <= estimate.cycles[0] <= 11 * (instructions + 40)


@pytest.mark.parametrize("tasklets", [4, 11])
def test_up_to_11_tasklets_run_in_parallel(tasklets):
    one, (alone,), _ = launch(1, 1)
    many, instructions, _ = launch(1, tasklets)
    assert (instructions == alone).all()
    assert int(many.cycles[0]) == int(
        one.cycles[0]
    )  # each tasklet still waits 11 cycles per instruction


def test_16_tasklets_share_one_instruction_per_cycle():
    one, (alone,), _ = launch(1, 1)
    many, instructions, cycles = launch(1, 16)
    assert (instructions == alone).all()
    # 16 active tasklets: each issues once every 16 cycles.
    assert int(many.cycles[0]) == pytest.approx(int(one.cycles[0]) * 16 / 11, rel=1e-3)
    # The performance counter is the DPU's: the last tasklet to finish reads the launch's
    # cycles, not its own 11-cycle pace.
    assert 0.99 * int(many.cycles[0]) <= int(cycles.max()) <= int(many.cycles[0])


def test_dma_costs_alpha_plus_half_a_cycle_per_byte():
    reads = 50
    estimate, instructions, _ = launch(2, 1, rounds=reads)
    compute = 11 * int(instructions[0])
    dma = int(estimate.cycles[0]) - compute
    assert reads * (77 + 2048 // 2) <= dma <= reads * (77 + 2048 // 2) + 11 * 40


def test_dma_engine_is_shared_by_the_tasklets():
    """Sixteen tasklets reading at once queue on the DPU's one DMA engine."""
    reads = 20
    estimate, *_ = launch(4, 16, rounds=reads)
    engine = 16 * reads * (77 + 2048 // 2)
    assert engine <= int(estimate.cycles[0]) <= engine * 1.05


def test_barrier_waiters_resume_at_their_releasers_time():
    solo, *_ = launch(1, 1)  # tasklet 0's compute, alone
    estimate, _, cycles = launch(3, 8)
    # Every tasklet leaves the barrier when tasklet 0 arrives, in modelled time, and reads
    # the counter a few instructions later.
    assert int(cycles.max()) - int(cycles.min()) <= 11 * 20, cycles
    assert int(cycles[0]) >= 0.99 * int(solo.cycles[0])
    assert int(estimate.cycles[0]) >= int(cycles[0])


def test_clock_setting_scales_seconds_not_cycles():
    default, *_ = launch(1, 1)
    fast, *_ = launch(1, 1, profile="clockMHz=700")
    assert default.clock_hz == 350e6 and fast.clock_hz == 700e6
    assert int(fast.cycles[0]) == int(default.cycles[0])
    assert fast.seconds == pytest.approx(default.seconds / 2)


def test_without_counting_the_estimate_says_so(monkeypatch):
    monkeypatch.setenv("PYUPMEM_EMU_COST", "0")
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(build_dpu("timing.c", "-DNR_TASKLETS=2", "-DUNCOUNTED"))
        dpus.broadcast("mode", np.uint32(2))
        dpus.broadcast("rounds", np.uint32(10))
        dpus.launch()
        estimate = dpus.estimate()
    assert not estimate.counted
    assert estimate.cycles[0] == 10 * (77 + 1024)  # DMA only: no instruction was counted


def test_host_transfers_are_estimated_from_the_per_rank_bandwidths():
    assert pim.estimate.transfer_seconds("scatter", 1 << 20, 64) == pytest.approx(
        64 * 2**20 / 6.68e9
    )
    assert pim.estimate.transfer_seconds("scatter", 1 << 20, 128) == pytest.approx(
        64 * 2**20 / 6.68e9
    )
    assert pim.estimate.transfer_seconds("gather", 1 << 20, 8) == pytest.approx(8 * 2**20 / 4.74e9)
    assert pim.estimate.transfer_seconds("broadcast", 8, 64) == pytest.approx(64 * 8 / 16.88e9)
    assert pim.estimate.transfer_seconds("read", 8, 1) == pytest.approx(8 / 0.12e9)
    with pytest.raises(ValueError, match="unknown transfer kind 'copy'"):
        pim.estimate.transfer_seconds("copy", 8, 1)


def test_phase_timer_records_the_estimated_hardware_time_per_phase():
    with pim.DpuSet(64, backend="emulator") as dpus:
        dpus.load(build_dpu("timing.c", "-DNR_TASKLETS=16"))
        timer = pim.PhaseTimer(warmup=0, dpus=dpus)
        for _ in timer.repetitions(2):
            with timer.phase(pim.CPU_DPU):
                dpus.broadcast("mode", np.uint32(4))
                dpus.broadcast("rounds", np.uint32(10))
            with timer.phase(pim.DPU_KERNEL):
                dpus.launch()
            with timer.phase(pim.DPU_CPU):
                dpus.gather("cycles_at_end", np.uint64, 16)
        kernel = dpus.estimate()
        assert dpus.hardware_seconds() > 2 * kernel.seconds
    assert timer.estimates(pim.DPU_KERNEL) == pytest.approx([kernel.seconds] * 2)
    assert timer.estimates(pim.CPU_DPU) == pytest.approx([2 * 64 * 4 / 16.88e9] * 2)
    assert timer.estimates(pim.DPU_CPU) == pytest.approx([64 * 16 * 8 / 4.74e9] * 2)
    # 16 tasklets x 10 reads of 2 KiB queue on the DMA engine: about 0.5 ms at 350 MHz.
    assert 16 * 10 * 1101 / 350e6 <= kernel.seconds <= 1.05 * 16 * 10 * 1101 / 350e6
    assert "hw est. ms" in timer.table()


def test_unmodified_c_host_reports_the_estimate_with_pyupmem_emu_timing():
    from emu_support import build_host, run

    dpu = build_dpu("dma_rules.c", "-DNR_TASKLETS=4")
    result = run([build_host("run_dma_rules.c"), dpu, 0, 2, ""], PYUPMEM_EMU_TIMING="1")
    assert "launch=0" in result.stdout
    reports = [line for line in result.stderr.splitlines() if "estimated on hardware" in line]
    assert len(reports) == 2  # one per synchronous launch
    assert reports[0].startswith("pyupmem emulator: launch on 2 DPUs: ")
    assert "at 350 MHz); " in reports[0] and reports[0].endswith(" ms emulated")
    quiet = run([build_host("run_dma_rules.c"), dpu, 0, 2, ""])
    assert "estimated on hardware" not in quiet.stderr


def test_nop_delay_loops_take_their_time():
    """`__builtin_nop_()` is a DPU instruction: a loop of n nops issues at least n of them."""
    _, (instructions,), _ = launch(5, 1, rounds=1000)
    assert instructions >= 1000
