"""The time model, one rule at a time, on small kernels whose costs are known
(tests/emu_programs/timing.c): the pipeline (a tasklet issues one instruction every 11
cycles, the DPU one per cycle, shared by the tasklets that compete for it), DMA latency
(alpha + beta * size on one engine), a multiply's cost from its operands, a mutex's
contention, waiting at a barrier for the others' modelled time, the launch's own cost,
host transfers, the clock and chip settings, the per-phase summary and the timeline."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from emu_support import build_dpu

import pyupmem as pim
from pyupmem import emu

pytestmark = pytest.mark.skipif(
    not emu.counts_costs(), reason="cost counting rewrites x86-64 assembly"
)
ROUNDS = 20_000


def launch(
    mode: int, tasklets: int, rounds: int = ROUNDS, profile: str = "", operands=(0, 0)
):
    """Runs `mode` on one DPU; returns (estimate, instructions, cycles_at_end)."""
    with pim.DpuSet(1, profile=profile, backend="emulator") as dpus:
        dpus.load(build_dpu("timing.c", f"-DNR_TASKLETS={tasklets}"))
        dpus.broadcast("mode", np.uint32(mode))
        dpus.broadcast("rounds", np.uint32(rounds))
        dpus.broadcast("operand", np.uint32(operands[0]))
        dpus.broadcast("operand2", np.uint32(operands[1]))
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
    assert estimate.seconds == pytest.approx(int(estimate.cycles[0]) / 350e6 + 0.1e-3)


@pytest.mark.parametrize("tasklets", [4, 11])
def test_up_to_11_tasklets_run_in_parallel(tasklets):
    one, (alone,), _ = launch(1, 1)
    many, instructions, _ = launch(1, tasklets)
    assert (instructions == alone).all()
    # Each tasklet still waits 11 cycles per instruction; the pipeline takes them in turn,
    # so the last one started (and ends) tasklets - 1 cycles after the first.
    assert int(many.cycles[0]) == int(one.cycles[0]) + tasklets - 1


def test_16_tasklets_share_one_instruction_per_cycle():
    one, (alone,), _ = launch(1, 1)
    many, instructions, cycles = launch(1, 16)
    assert (instructions == alone).all()
    # 16 active tasklets: each issues once every 16 cycles.
    assert int(many.cycles[0]) == pytest.approx(int(one.cycles[0]) * 16 / 11, rel=1e-3)
    # The performance counter is the DPU's: every tasklet reads the launch's pace at its
    # end, not its own 11-cycle pace (each issued once every 16 cycles all along).
    assert 0.99 * int(many.cycles[0]) <= int(cycles.min()) <= int(many.cycles[0])


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
    # the DPU's cycles take half the time; booting and polling it does not change
    assert fast.seconds - fast.launch_seconds == pytest.approx(
        (default.seconds - default.launch_seconds) / 2
    )


def test_chip_versions_set_the_clock_and_the_tasklet_limit():
    v1b, *_ = launch(1, 16, rounds=10, profile="chipVersion=v1B")
    assert v1b.clock_hz == 400e6
    explicit, *_ = launch(1, 16, rounds=10, profile="chipVersion=v1B,clockMHz=267")
    assert explicit.clock_hz == 267e6  # an explicit clock wins
    with pim.DpuSet(1, profile="chipVersion=v1B", backend="emulator") as dpus:
        with pytest.raises(pim.DpuProgramError, match="TOO_MANY_TASKLETS"):
            dpus.load(build_dpu("timing.c", "-DNR_TASKLETS=24", "-DSTACK_SIZE_DEFAULT=512"))
    with pim.DpuSet(1, backend="emulator") as dpus:  # v1A: 24 tasklets
        dpus.load(build_dpu("timing.c", "-DNR_TASKLETS=24", "-DSTACK_SIZE_DEFAULT=512"))
    with pytest.raises(pim.DpuProfileError):
        pim.DpuSet(1, profile="chipVersion=v2", backend="emulator")


def per_product(mode: int, operands: tuple[int, int]) -> float:
    """Instructions per loop round of `mode` (a multiply and its loop), one tasklet."""
    _, (instructions,), _ = launch(mode, 1, rounds=1000, operands=operands)
    return int(instructions) / 1000


def test_a_32_bit_multiply_costs_by_the_smaller_operand():
    """__mulsi3: 8 cycles and one per bit of the smaller (unsigned) operand, at least one:
    the steps shift the smaller operand and leave when it is zero."""
    zero = per_product(7, (0, 0))
    assert per_product(7, (1, 0xFFFFFFFF)) == pytest.approx(zero, abs=0.01)  # 1 bit
    assert per_product(7, (100, 100)) == pytest.approx(zero + 6, abs=0.01)  # 7 bits
    assert per_product(7, (70000, 90000)) == pytest.approx(zero + 16, abs=0.01)  # 17
    assert per_product(7, (0xFFFFFFFF, 7)) == pytest.approx(zero + 2, abs=0.01)  # order
    assert per_product(7, (7, 0xFFFFFFFF)) == pytest.approx(zero + 2, abs=0.01)
    # -1 is the largest unsigned value: the other operand is the multiplier
    assert per_product(7, (0xFFFFFFFF, 0xFFFFFFFF)) == pytest.approx(zero + 31, abs=0.01)


def test_an_8_bit_product_is_one_instruction():
    small, large = per_product(8, (1, 1)), per_product(8, (255, 200))
    assert small == pytest.approx(large, abs=0.01)  # not data-dependent
    # the same loop with 32-bit operands pays __mulsi3: 8 + 8 for 200
    assert per_product(7, (255, 200)) - large == pytest.approx(8 + 8 - 1, abs=0.01)


def test_a_32_bit_division_costs_by_the_quotient_bits():
    """__udiv32 runs only the div_steps of the quotient's bits: bitlength(dividend) -
    bitlength(divider) + 1 steps of one cycle and 8 around them, 6 for a quotient of 0;
    the signed __div32 adds 7."""
    zero = per_product(10, (3, 1000))  # quotient 0: no step
    one = per_product(10, (1000, 1000))  # 10 bits each: one step
    assert one - zero == pytest.approx(8 + 1 - 6, abs=0.01)
    assert per_product(10, (1000, 3)) - one == pytest.approx(8, abs=0.01)  # 9 steps
    assert per_product(10, (0xFFFFFFFF, 1)) - one == pytest.approx(31, abs=0.01)
    assert per_product(11, (1000, 3)) - per_product(10, (1000, 3)) == pytest.approx(7, abs=0.01)
    # the signed one works on magnitudes
    assert per_product(11, (-1000 & 0xFFFFFFFF, 3)) == pytest.approx(
        per_product(11, (1000, 3)), abs=0.01
    )


def test_an_array_loop_counts_the_dpu_sequence():
    """x[i] += s through a pointer: the DPU's loop keeps an index besides the address (6
    instructions an int32 element, 7 an int64 one: PrIM's ADD throughputs), gcc's has 5
    and 6."""
    per_pass32 = per_product(12, (3, 0)) / 64
    per_pass64 = per_product(13, (3, 0)) / 64
    assert per_pass32 == pytest.approx(6, abs=0.1)
    assert per_pass64 == pytest.approx(7, abs=0.1)


def test_mutex_contention_serialises_the_critical_sections():
    alone, _, _ = launch(9, 16, rounds=2000)  # the same increments, no mutex
    contended, _, _ = launch(6, 16, rounds=2000)
    assert int(contended.cycles[0]) > 1.5 * int(alone.cycles[0])
    shares = contended.breakdown()
    assert shares["wait"] > shares["compute"]  # most of a tasklet's time waits for the lock
    # the waiters spin: their retried acquires are counted instructions
    one, _, _ = launch(6, 1, rounds=2000)
    assert contended.instructions.sum() > 16 * int(one.instructions.sum())
    # all 16 compete all along, so each critical section runs at one instruction in 16 cycles
    per_element = int(contended.cycles[0]) / (16 * 2000)
    assert 16 * 4 <= per_element <= 16 * 8


def test_a_mutex_held_across_a_dma():
    """Sixteen tasklets take turns reading 8 bytes of MRAM under one mutex. The critical
    sections follow one another: each is the read's 81 cycles on the DMA engine and its
    few instructions, at one in 16 cycles while the others spin. mram_read is one `ldma`
    on a DPU (the SDK's mram.h), so its issue costs one of those instructions, not a call
    with its size, file and line."""
    rounds = 500
    contended, instructions, _ = launch(14, 16, rounds=rounds)
    per_section = int(contended.cycles[0]) / (16 * rounds)
    # acquire, the addresses, ldma, release, the loop's step and branch: at most 8
    assert 81 + 16 * 3 <= per_section <= 81 + 16 * 8
    shares = contended.breakdown()
    assert shares["wait"] > shares["compute"]  # most of the time is spinning on the lock
    alone, (one,), _ = launch(14, 1, rounds=rounds)
    assert int(one) <= 8 * rounds + 40  # before: 6 more per round (the call's arguments, 3)


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


def test_transfer_bandwidth_grows_with_the_dpus_of_a_rank():
    """A rank's rate at 1, 4, 16 and 64 of its DPUs (hardware runs of PrIM workloads),
    log-log between them; large transfers show it (the per-call cost is negligible)."""
    size = 32 << 20
    seconds = pim.estimate.model.transfer_seconds
    rate = {n: n * size / seconds("scatter", size, n) for n in (1, 4, 64)}
    assert rate[1] == pytest.approx(0.56e9, rel=0.01)
    assert rate[4] == pytest.approx(1.45e9, rel=0.01)
    assert rate[64] == pytest.approx(4.6e9, rel=0.01)
    rates = [n * size / seconds("scatter", size, n) for n in range(1, 65)]
    assert all(a < b for a, b in zip(rates, rates[1:], strict=False))
    gather = {n: n * size / pim.estimate.model.transfer_seconds("gather", size, n) for n in (1, 64)}
    assert gather[1] == pytest.approx(0.111e9, rel=0.01)
    assert gather[64] == pytest.approx(1.44e9, rel=0.01)  # gathers: well below pushes
    broadcast = 64 * size / pim.estimate.model.transfer_seconds("broadcast", size, 64)
    assert broadcast == pytest.approx(16.88e9, rel=0.01)
    # ranks move in parallel: 128 DPUs take a little longer than 64 (a fixed cost per rank)
    two_ranks = pim.estimate.model.transfer_seconds("scatter", size, 128)
    assert 1 < two_ranks / pim.estimate.model.transfer_seconds("scatter", size, 64) < 1.01
    with pytest.raises(ValueError, match="unknown transfer kind 'copy'"):
        pim.estimate.model.transfer_seconds("copy", 8, 1)
    with pytest.raises(ValueError, match="unknown memory 'iram'"):
        pim.estimate.model.transfer_seconds("gather", 8, 1, memory="iram")


def test_every_transfer_call_has_a_fixed_cost_and_one_per_dpu():
    push_call, push_per_dpu = 55e-6, 0.12e-6
    for kind in ("scatter", "gather", "broadcast", "write", "read"):
        assert pim.estimate.model.transfer_seconds(kind, 8, 1) >= push_call
    # a 64-byte push: the call and each DPU's share, the bytes nearly nothing
    assert pim.estimate.model.transfer_seconds("scatter", 64, 1) == pytest.approx(
        push_call + push_per_dpu + 64 / 0.56e9
    )
    assert pim.estimate.model.transfer_seconds("scatter", 64, 64) == pytest.approx(
        push_call + 64 * push_per_dpu + 64 * 64 / 4.6e9
    )
    # one DPU at a time (dpu_copy_from) runs at the single-DPU rate, a call per DPU
    one = 110e-6 + 0.4e-6 + 8 / 0.111e9
    assert pim.estimate.model.transfer_seconds("read", 8, 1) == pytest.approx(one)
    assert pim.estimate.model.transfer_seconds("read", 8, 64) == pytest.approx(64 * one)


def test_a_call_from_the_dpus_costs_twice_one_to_them():
    """Small results read back (a histogram's 1 KiB, a GEMV's 256 B per DPU) take 0.11 to
    0.2 ms a call on hardware, where 64-byte pushes take 55 to 62 us: a gather's fixed cost
    is 110 us and 0.4 us per DPU, a push's 55 us and 0.12 us."""
    seconds = pim.estimate.model.transfer_seconds
    for dpus in (1, 4, 16, 64):
        push, gather = seconds("scatter", 8, dpus), seconds("gather", 8, dpus)
        assert push == pytest.approx(55e-6 + dpus * 0.12e-6, rel=0.01)
        assert gather == pytest.approx(110e-6 + dpus * 0.4e-6, rel=0.01)
    # a 1 KiB histogram from each of 64 DPUs: the call, not the 64 KiB, is most of it
    histogram = seconds("gather", 1024, 64)
    assert 0.15e-3 < histogram < 0.2e-3


def test_reading_wram_costs_per_dpu_and_byte():
    """WRAM is read through the control interfaces: a cost per byte of each DPU, on top
    of the MRAM path's, for reads only."""
    mram = pim.estimate.model.transfer_seconds("gather", 256, 64)
    wram = pim.estimate.model.transfer_seconds("gather", 256, 64, memory="wram")
    assert wram - mram == pytest.approx(64 * 256 * 46e-9)
    small = pim.estimate.model.transfer_seconds("gather", 128, 16, memory="wram")
    assert small - pim.estimate.model.transfer_seconds("gather", 128, 16) == pytest.approx(
        16 * 128 * 46e-9
    )
    # writes to WRAM take the same path as to MRAM
    assert pim.estimate.model.transfer_seconds("scatter", 256, 64, memory="wram") == pytest.approx(
        pim.estimate.model.transfer_seconds("scatter", 256, 64)
    )
    # a gather of a WRAM symbol through the library is charged as such
    with pim.DpuSet(16, backend="emulator") as dpus:
        dpus.load(build_dpu("timing.c", "-DNR_TASKLETS=16"))
        dpus.gather("cycles_at_end", np.uint64, 16)
        estimated = dpus.phase_seconds()["DPU-CPU"]
    gather = pim.estimate.model.transfer_seconds("gather", 128, 16, "wram")
    assert estimated == pytest.approx(gather)


def test_a_push_of_one_host_buffer_to_every_dpu_is_a_broadcast():
    """libdpu broadcasts to MRAM by pushing a matrix whose every entry is the one source
    buffer (its COPY_MRAM_TO_RANK job), so hardware runs a push whose DPUs all read the same
    buffer (PrIM's BS sends its sorted array so) as a broadcast. To WRAM a broadcast takes
    its own path, and such a push stays a push."""
    seconds = pim.estimate.model.transfer_seconds
    program = build_dpu("timing.c", "-DNR_TASKLETS=16")

    def cpu_dpu(symbol: str, shares: list[np.ndarray]) -> float:
        with pim.DpuSet(64, backend="emulator") as dpus:
            dpus.load(program)
            dpus.scatter(symbol, shares, raw=True)
            return dpus.phase_seconds()["CPU-DPU"]

    table = np.arange(2048, dtype=np.uint8)
    same = cpu_dpu("table", [table] * 64)
    assert same == pytest.approx(seconds("broadcast", 2048, 64))
    distinct = cpu_dpu("table", [table.copy() for _ in range(64)])
    assert distinct == pytest.approx(seconds("scatter", 2048, 64))
    assert same < distinct
    counters = np.zeros(16, np.uint32)
    assert cpu_dpu("own_counter", [counters] * 64) == pytest.approx(
        seconds("scatter", 64, 64, "wram")
    )


def test_a_launch_costs_booting_and_polling_per_dpu_of_a_control_interface():
    """The boot and poll commands reach a rank's 8 control interfaces at once: the cost
    grows with the DPUs per interface (at most 8), not with the interfaces."""
    for dpus, per_ci in ((1, 1), (4, 4), (8, 8), (64, 8)):
        expected = 97e-6 + 3e-6 * per_ci
        with pim.DpuSet(dpus, backend="emulator") as group:
            group.load(build_dpu("timing.c", "-DNR_TASKLETS=1"))
            assert group.estimate().seconds == 0.0  # no launch yet
            group.broadcast("mode", np.uint32(0))
            group.launch()
            estimate = group.estimate()
        assert estimate.launch_seconds == pytest.approx(expected)
        assert estimate.seconds == pytest.approx(
            int(estimate.cycles.max()) / 350e6 + expected
        )
        assert pim.estimate.model.launch_seconds(dpus) == pytest.approx(expected)


def test_the_breakdown_adds_up_to_the_estimate():
    estimate, _, _ = launch(4, 16, rounds=10)
    shares = estimate.breakdown()
    assert set(shares) == {"compute", "dma", "wait", "idle", "launch"}
    assert sum(shares.values()) == pytest.approx(estimate.seconds)
    assert shares["dma"] > 10 * shares["compute"]  # the DMA-bound mode
    assert estimate.tasklet_cycles.shape == (1, 16, 3)
    assert "KernelEstimate(" in repr(estimate) and "dma" in repr(estimate)


def test_a_traced_launch_gives_a_chrome_trace(tmp_path):
    import json

    with pim.DpuSet(2, backend="emulator") as dpus:
        dpus.load(build_dpu("timing.c", "-DNR_TASKLETS=4"))
        dpus.broadcast("mode", np.uint32(4))
        dpus.broadcast("rounds", np.uint32(5))
        dpus.launch()
        assert dpus.timeline(1).events == ()  # launches record nothing unless asked
        dpus.launch(trace=True)
        timeline = dpus.timeline(1)
        estimate = dpus.estimate()
        with pytest.raises(pim.ArgumentValueError, match="DPUs 0 to 1"):
            dpus.timeline(2)
    assert timeline.tasklets == [0, 1, 2, 3] and timeline.dropped == 0
    assert {e.activity for e in timeline.events} == {"compute", "dma"}
    assert sum(e.activity == "dma" for e in timeline.events if e.tasklet == 2) >= 1
    assert timeline.cycles <= int(estimate.cycles[1])
    document = json.loads(timeline.save(tmp_path / "trace.json").read_text())
    complete = [e for e in document["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(timeline.events)
    assert {e["name"] for e in complete} == {"compute", "dma"}
    assert all(e["dur"] >= 0 and e["pid"] == 1 for e in complete)
    names = {e["args"]["name"] for e in document["traceEvents"] if e["name"] == "thread_name"}
    assert names == {f"tasklet {t}" for t in range(4)}


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
    broadcast = pim.estimate.model.transfer_seconds("broadcast", 4, 64)
    assert timer.estimates(pim.CPU_DPU) == pytest.approx([2 * broadcast] * 2)
    gather = pim.estimate.model.transfer_seconds("gather", 16 * 8, 64, memory="wram")
    assert timer.estimates(pim.DPU_CPU) == pytest.approx([gather] * 2)
    # 16 tasklets x 10 reads of 2 KiB queue on the DMA engine: about 0.5 ms at 350 MHz,
    # and the launch of 64 DPUs costs 0.12 ms.
    engine = 16 * 10 * 1101 / 350e6 + kernel.launch_seconds
    assert engine <= kernel.seconds <= 1.05 * engine
    assert "hw est. ms" in timer.table()


def test_unmodified_c_host_reports_the_estimate_with_pyupmem_emu_timing():
    from emu_support import build_host, run

    dpu = build_dpu("dma_rules.c", "-DNR_TASKLETS=4")
    result = run([build_host("run_dma_rules.c"), dpu, 0, 2, ""], PYUPMEM_EMU_TIMING="1")
    assert "launch=0" in result.stdout
    reports = [line for line in result.stderr.splitlines() if "estimated on hardware" in line]
    assert len(reports) == 2  # one per synchronous launch
    assert reports[0].startswith("pyupmem emulator: launch on 2 DPUs: ")
    assert "at 350 MHz, and 0.103 ms to boot and poll); " in reports[0]
    assert reports[0].endswith(" ms emulated")
    # at exit, the time by phase, PrIM's names
    lines = result.stderr.splitlines()
    start = lines.index("pyupmem emulator: time by phase, emulated here and modelled for hardware")
    table = {line.split()[0] if not line.startswith("  DPU ") else " ".join(line.split()[:2]):
             line for line in lines[start + 2 : start + 7]}
    assert set(table) == {"CPU-DPU", "DPU kernel", "Inter-DPU", "DPU-CPU", "total"}
    kernel = table["DPU kernel"].split()
    assert kernel[-1] == "2" and float(kernel[-2]) > 0.2  # 2 launches, 0.1 ms each at least
    cpu_dpu = table["CPU-DPU"].split()
    assert int(cpu_dpu[-1]) == 2 and float(cpu_dpu[-2]) >= 0.11  # two broadcasts (copy_to)
    quiet = run([build_host("run_dma_rules.c"), dpu, 0, 2, ""])
    assert "estimated on hardware" not in quiet.stderr and "time by phase" not in quiet.stderr


def test_a_python_host_reports_with_pyupmem_emu_timing(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "host.py"
    script.write_text(
        "import numpy as np, pyupmem as pim\n"
        f"with pim.DpuSet(4, backend='emulator') as dpus:\n"
        f"    dpus.load({str(build_dpu('timing.c', '-DNR_TASKLETS=2'))!r})\n"
        "    dpus.broadcast('mode', np.uint32(0))\n"
        "    dpus.launch()\n"
        "    dpus.gather('cycles_at_end', np.uint64, 2)\n"
    )
    env = {**__import__("os").environ, "PYUPMEM_EMU_TIMING": "1"}
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            env=env, check=True)
    assert "pyupmem emulator: launch on 4 DPUs: " in result.stderr
    assert "time by phase" in result.stderr
    for phase in ("CPU-DPU", "DPU kernel", "Inter-DPU", "DPU-CPU"):
        assert f"  {phase} " in result.stderr


def test_phase_seconds_classify_the_calls():
    with pim.DpuSet(64, backend="emulator") as dpus:
        dpus.load(build_dpu("timing.c", "-DNR_TASKLETS=16"))
        dpus.broadcast("mode", np.uint32(1))
        dpus.broadcast("rounds", np.uint32(10))
        dpus.launch()
        sum(range(100_000))  # host work between launches: Inter-DPU
        dpus.launch()
        dpus.gather("cycles_at_end", np.uint64, 16)
        estimated, emulated = dpus.phase_seconds(), dpus.phase_seconds(estimated=False)
        kernel = dpus.estimate().seconds
    assert list(estimated) == list(pim.PHASES)
    assert estimated["DPU kernel"] == pytest.approx(2 * kernel)
    broadcast = pim.estimate.model.transfer_seconds("broadcast", 4, 64)
    assert estimated["CPU-DPU"] == pytest.approx(2 * broadcast)
    assert estimated["DPU-CPU"] == pytest.approx(
        pim.estimate.model.transfer_seconds("gather", 128, 64, memory="wram")
    )
    assert estimated["Inter-DPU"] == emulated["Inter-DPU"] > 0


def test_nop_delay_loops_take_their_time():
    """`__builtin_nop_()` is a DPU instruction: a loop of n nops issues at least n of them."""
    _, (instructions,), _ = launch(5, 1, rounds=1000)
    assert instructions >= 1000


DIRECT_MRAM = """
#include <stdint.h>
#include <defs.h>
#include <mram.h>
__mram_noinit uint64_t cells[64];
__host uint64_t total;
__host uint32_t direct;
int main(void)
{
    uint64_t sum = 0;
    if (direct) {
        for (unsigned i = 0; i < 64; i++)
            cells[i] = i;                 /* a DMA write on a DPU */
        __asm__ volatile("" ::: "memory");
        for (unsigned i = 0; i < 64; i++)
            sum += cells[i];              /* a DMA read */
    } else {
        for (unsigned i = 0; i < 64; i++)
            sum += i;
    }
    total = sum;
    return 0;
}
"""


def test_a_direct_mram_access_costs_a_dma():
    """An __mram variable or __mram_ptr access is a DMA of 8 bytes on a DPU (the compiler
    goes through a WRAM temporary): the estimate charges each one as such."""
    program = pim.build_program(DIRECT_MRAM, nr_tasklets=1)
    dma = {}
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        for direct in (0, 1):
            dpus.broadcast("direct", np.uint32(direct))
            dpus.launch()
            assert dpus.gather("total", np.uint64, 1)[0, 0] == sum(range(64))
            dma[direct] = int(dpus.estimate().tasklet_cycles[0, 0, 1])
    assert dma[0] == 0
    # 64 reads (77 + 4 cycles) and 64 writes (61 + 4) alone on the DMA engine
    assert dma[1] == 64 * (77 + 4) + 64 * (61 + 4)


def timing_benchmark(name: str) -> ModuleType:
    """benchmarks/timing/`name`.py, imported."""
    folder = Path(__file__).resolve().parent.parent / "benchmarks" / "timing"
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))  # the scripts import one another, as when run
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prim_workloads_transfers_at_their_own_sizes_within_20_percent():
    """benchmarks/timing/prim_transfers.py rebuilds hardware's CPU-DPU and DPU-CPU times of
    seven PrIM workloads at 1 to 64 DPUs (issue 25's ratios); the constants set from them
    must keep both phases' mean error under 20% (17.7% and 24.1% before a gather's call cost
    was told from a push's), and TRNS's thousands of 64-byte pushes within 5%."""
    prim_transfers = timing_benchmark("prim_transfers")
    table = prim_transfers.rows()
    assert len(table) == 56
    errors = prim_transfers.mean_errors(table)
    assert errors["CPU-DPU"] < 20 and errors["DPU-CPU"] < 20, errors
    pushes = [r for r in table if r["workload"] == "TRNS" and r["phase"] == "CPU-DPU"]
    assert all(abs(r["error_pct"]) < 5 for r in pushes), pushes


def test_prim_style_kernels_at_prims_sizes_on_1_to_64_dpus():
    """benchmarks/timing/prim_kernels.py runs seven PrIM-style kernels at PrIM's sizes on
    1, 4, 16 and 64 DPUs, launches included, and sets now / v2 beside hardware / v2 (issue
    25; only SCAN-SSA's 64-DPU ratio had a part in setting a constant). Their mean error is
    9.2% (12.9% at 64 DPUs, where the launch weighs most); the scan's rows are within 1% up
    to 16 DPUs and the GEMV's, which test the multiply's mechanism, within 7%. With the
    transfers of the same runs (prim_transfers.py), the whole runs' mean error is 6.4%."""
    prim_kernels = timing_benchmark("prim_kernels")
    table = prim_kernels.rows(prim_kernels.measure())
    assert len(table) == 28
    assert prim_kernels.mean_error(table) < 12, table
    assert prim_kernels.mean_error(prim_kernels.whole_runs(table)) < 12
    assert all(abs(r["error_pct"]) < 35 for r in table), table
    scan = [r for r in table if r["workload"] == "SCAN-SSA" and r["dpus"] <= 16]
    assert all(abs(r["error_pct"]) < 2 for r in scan), scan
    gemv = [r for r in table if r["workload"] == "GEMV"]
    assert all(abs(r["error_pct"]) < 10 for r in gemv), gemv


PRINTS = """
#include <barrier.h>
#include <defs.h>
#include <stdio.h>
#include <stdint.h>
BARRIER_INIT(ready, NR_TASKLETS);
__host uint32_t print;
__host char word[8] = "pim";
int main(void)
{
    barrier_wait(&ready);
    if (print == 1)
        printf("Tasklet %d has found %lld\\n", me(), (long long)me() * 1000);
    if (print == 2)
        printf("%s|%c\\n", word, 'x');
    return 0;
}
"""


def print_launches(tasklets: int, prints: tuple[int, ...]) -> dict[int, pim.KernelEstimate]:
    """The estimate of a launch of PRINTS with each `print` mode."""
    estimates = {}
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(pim.build_program(PRINTS, nr_tasklets=tasklets))
        for mode in prints:
            dpus.broadcast("print", np.uint32(mode))
            dpus.launch()
            estimates[mode] = dpus.estimate()
            if mode == 1:
                assert dpus[0].log().count("has found") == tasklets
    return estimates


def test_a_printf_costs_what_the_sdks_printf_executes():
    """The SDK's printf formats nothing on the DPU: it writes the format's skeleton and then
    the literal text and the arguments' bytes, a byte at a time, with an 8-byte DMA per 8
    bytes. "Tasklet %d has found %lld\\n" writes 13 + 35 bytes: 792 instructions and 7
    DMAs; "%s|%c\\n" with "pim" writes 9 + 9 bytes: 293 and 3."""
    runs = print_launches(1, (0, 1, 2))
    base = int(runs[0].instructions[0, 0])
    # what remains is the program's own call: the arguments' set-up and the call
    assert 792 <= int(runs[1].instructions[0, 0]) - base <= 792 + 12
    assert 293 <= int(runs[2].instructions[0, 0]) - base <= 293 + 12
    dma = {mode: int(run.tasklet_cycles[0, 0, 1]) for mode, run in runs.items()}
    assert dma[1] - dma[0] == 7 * (61 + 4)
    assert dma[2] - dma[0] == 3 * (61 + 4)


def test_prints_of_many_tasklets_follow_one_another_under_the_sdks_lock():
    """The SDK's printf holds one lock for the whole print, so 16 tasklets' prints take
    turns; the others spin on it meanwhile. Without the lock the 16 prints' 12,672
    instructions would share the pipeline (one per cycle) and the DMA engine."""
    runs = print_launches(16, (0, 1))
    printing = int(runs[1].cycles[0]) - int(runs[0].cycles[0])
    assert printing > 4 * 16 * 792
