"""The Pythonic layer on the emulator: sets, ranks, symbols, transfers, launches, logs,
backend choice, building DPU programs, the command line and the phase timer."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from dpu_gate import GATE_C, Gate

import pyupmem as pim
from pyupmem import __main__ as cli
from pyupmem.driver.backend import find_backend

KERNEL = r"""
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>
__host uint8_t wram_buf[1024];
__host uint32_t mode;
__host uint32_t loops;
__host uint32_t value;
__host uint64_t result;
__mram_noinit uint8_t mram_buf[1 << 16];
__mram uint64_t mram_init[4] = {1, 2, 3, 4};
int main(void)
{
    if (me() != 0)
        return 0;
    volatile uint64_t counter = 0;
    switch (mode) {
    case 1: { uint64_t x[2]; mram_read((__mram_ptr void *)((uintptr_t)mram_buf + 4), x, 8); break; }
    case 2: printf("value %u on tasklet %u\n", value, me()); break;
    case 3: for (uint32_t i = 0; i < loops; i++) counter++; result = counter; break;
    default: result = value + 1; break;
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=4, name="api_kernel")


@pytest.fixture
def dpus(program: pim.Program):
    with pim.DpuSet(8) as dpus:
        dpus.load(program)
        yield dpus


def test_backend_is_the_emulator_here() -> None:
    backend = pim.default_backend()
    assert backend.kind == "emulator"
    assert Path(backend.library).name == "libdpu.so"
    assert backend.compiler is not None and backend.compiler.name == "dpu-upmem-dpurte-clang"


def test_set_is_a_sequence_of_dpus(program: pim.Program) -> None:
    with pim.DpuSet(70) as dpus:
        assert len(dpus) == 70
        assert dpus.nr_ranks == 2
        assert [d.index for d in dpus] == list(range(70))
        assert dpus[-1].index == 69
        assert [d.index for d in dpus[3:6]] == [3, 4, 5]
        assert len(dpus[7]) == 1 and list(dpus[7]) == [dpus[7]]
        ranks = dpus.ranks
        assert [len(r) for r in ranks] == [64, 6]
        assert [d.index for d in ranks[1]] == list(range(64, 70))
        dpus.load(program)
        ranks[1].broadcast("value", np.uint32(7))
        values = dpus.gather("value", np.uint32, 1)[:, 0]
        assert values[:64].tolist() == [0] * 64 and values[64:].tolist() == [7] * 6


def test_allocation_by_ranks_and_all() -> None:
    with pim.DpuSet(nr_ranks=2) as dpus:
        assert len(dpus) == 128 and dpus.nr_ranks == 2
    with pim.DpuSet(profile={"nrRanks": 3}) as everything:
        assert len(everything) == 192
    with pim.DpuSet(pim.ALL, profile="nrRanks=1") as everything:
        assert len(everything) == 64


def test_symbols(dpus: pim.DpuSet) -> None:
    wram = dpus.symbol("wram_buf")
    assert (wram.memory, wram.size, wram.alignment) == ("WRAM", 1024, 4)
    mram = dpus.symbol("mram_buf")
    assert (mram.memory, mram.size, mram.alignment) == ("MRAM", 1 << 16, 8)
    assert mram.address & 0x08000000
    heap = dpus.symbol(pim.DPU_MRAM_HEAP_POINTER_NAME)
    assert heap.memory == "MRAM" and heap.size > 60 << 20
    assert dpus.program is not None
    assert dpus.program["value"].size == 4
    assert "value" in dpus.program and "nope" not in dpus.program
    assert dpus[3].symbol("value") == dpus.symbol("value")


def test_a_loaded_programs_repr_shows_its_symbols(program: pim.Program) -> None:
    with pim.DpuSet(1) as dpu:
        loaded = dpu.load(program)
        text = repr(loaded)
        assert text.startswith(f"LoadedProgram({str(program.path)!r}, symbols=[")
        for shown in ("wram_buf: uint8_t[1024] (1024 B)", "mode: uint32_t (4 B)",
                      "result: uint64_t (8 B)", "mram_init: uint64_t[4] (32 B)"):
            assert shown in text
        assert "mram_buf: uint8_t[65536] (65536 B)" in text and "more" not in text
        assert "__" not in text.split("symbols=")[1]  # the runtime's own names stay out
        assert list(loaded) == []  # a repr looks nothing up
    assert repr(loaded) == text  # and works after the set is freed

    many = "#include <defs.h>\n#include <stdint.h>\n" + "".join(
        f"__host uint32_t v{i};\n" for i in range(12)) + "int main(void) { return 0; }\n"
    with pim.DpuSet(1) as dpu:
        text = repr(dpu.load(pim.build_program(many, nr_tasklets=1, name="many")))
    assert "v7: uint32_t (4 B), ... 4 more])" in text and "v8" not in text  # one short line

    bare = pim.build_program(KERNEL, nr_tasklets=4, name="api_kernel_bare", debug=False)
    with pim.DpuSet(1) as dpu:
        loaded = dpu.load(bare)
        assert repr(loaded).endswith("symbols=[])")
        loaded["value"]
        assert repr(loaded).endswith("symbols=[value: 4 B of WRAM])")


def test_broadcast_scatter_gather_read_write(dpus: pim.DpuSet) -> None:
    n = len(dpus)
    dpus.broadcast("wram_buf", np.arange(256, dtype=np.uint32))
    assert np.array_equal(dpus.gather("wram_buf", np.uint32), np.tile(np.arange(256), (n, 1)))
    data = np.arange(n * 512, dtype=np.int64).reshape(n, 512)
    dpus.scatter("mram_buf", data, offset=64)
    assert np.array_equal(dpus.gather("mram_buf", np.int64, 512, offset=64), data)
    assert np.array_equal(
        dpus.gather("mram_buf", np.int64, (2, 256), offset=64)[5].ravel(), data[5]
    )
    dpus[2].write("value", np.uint32(99))
    assert dpus[2].read("value", np.uint32, 1)[0] == 99
    assert dpus[3].read("value", np.uint32, 1)[0] == 0
    out = bytearray(16)
    dpus[4].read("mram_init", out=out)
    assert np.frombuffer(out, np.uint64).tolist() == [1, 2]
    # Any buffer goes in: bytes, bytearray, memoryview, array.array.
    dpus.broadcast("wram_buf", b"\x01\x02\x03\x04" * 2, offset=8)
    assert dpus[0].read("wram_buf", np.uint8, 8, offset=8).tolist() == [1, 2, 3, 4] * 2
    # A non-contiguous array is made contiguous.
    dpus.broadcast("wram_buf", np.arange(32, dtype=np.uint32)[::2])
    assert dpus[1].read("wram_buf", np.uint32, 16).tolist() == list(range(0, 32, 2))
    # Sequences of shares, and gather into an existing array.
    shares = [np.full(4, i, np.uint16) for i in range(n)]
    dpus.scatter("wram_buf", shares)
    out_array = np.empty((n, 4), np.uint16)
    assert dpus.gather("wram_buf", out=out_array) is out_array
    assert out_array[:, 0].tolist() == list(range(n))


def test_scatter_pads_only_when_asked(dpus: pim.DpuSet) -> None:
    n = len(dpus)
    shares = [np.full(i + 1, i + 1, np.uint8) for i in range(n)]
    with pytest.raises(pim.DpuAccessError) as info:
        dpus.scatter("mram_buf", shares)
    assert info.value.code == 36 and "pad=True" in str(info.value)
    dpus.scatter("mram_buf", shares, pad=True)
    got = dpus.gather("mram_buf", np.uint8, 8)
    for i in range(n):
        assert got[i, : i + 1].tolist() == [i + 1] * (i + 1)
        assert got[i, i + 1 :].tolist() == [0] * (7 - i)
    # An array of rows whose size breaks the 8-byte rule is padded too.
    rows = np.arange(n * 3, dtype=np.uint8).reshape(n, 3)
    dpus.scatter("mram_buf", rows, pad=True)
    assert np.array_equal(dpus.gather("mram_buf", np.uint8, 8)[:, :3], rows)


def test_launch_sync_status_and_logs(dpus: pim.DpuSet) -> None:
    dpus.broadcast("mode", np.uint32(2))
    dpus.scatter("value", np.arange(len(dpus), dtype=np.uint32).reshape(-1, 1))
    dpus.launch()
    assert dpus.status() == pim.DpuStatus(done=True, fault=False)
    logs = dpus.logs()
    assert logs[5] == "value 5 on tasklet 0\n"
    assert dpus[5].log() == logs[5]
    assert dpus[5].log(header=True).startswith("=== DPU#0x5 ===\n")
    buffer = io.StringIO()
    dpus.ranks[0].print_logs(file=buffer)
    assert "=== DPU#0x7 ===\nvalue 7 on tasklet 0\n" in buffer.getvalue()

    dpus.broadcast("mode", np.uint32(3))
    dpus.broadcast("loops", np.uint32(100_000_000))
    dpus.launch(asynchronous=True)
    dpus.sync()
    assert dpus.status() == (True, False)
    assert dpus.gather("result", np.uint64, 1).ravel().tolist() == [100_000_000] * len(dpus)


def test_an_asynchronous_launch_runs_until_its_dpus_finish() -> None:
    gated = pim.build_program(
        GATE_C + "int main(void) { wait_for_gate(); return 0; }", nr_tasklets=1, name="gated"
    )
    with pim.DpuSet(8) as dpus:
        dpus.load(gated)
        gate = Gate(dpus)
        dpus.launch(asynchronous=True)
        assert dpus.status().done is False  # they wait for the gate, whatever the load
        gate.open()
        dpus.sync()
        assert dpus.status() == (True, False)


def test_wram_and_mram_keep_their_contents_across_launches(dpus: pim.DpuSet) -> None:
    dpus.broadcast("mram_buf", np.arange(8, dtype=np.uint64))
    dpus.broadcast("value", np.uint32(41))
    dpus.launch()
    dpus.launch()
    assert dpus[0].read("result", np.uint64, 1)[0] == 42
    assert dpus[0].read("mram_buf", np.uint64, 8).tolist() == list(range(8))


def test_single_dpu_and_rank_loads(program: pim.Program) -> None:
    with pim.DpuSet(4) as dpus:
        dpus[1].load(program)
        dpus[1].write("value", np.uint32(5))
        dpus[1].launch()
        assert dpus[1].read("result", np.uint64, 1)[0] == 6
        assert dpus.program is None
        dpus.load(program)
        assert dpus[1].program is dpus.program


def test_load_from_memory(program: pim.Program) -> None:
    with pim.DpuSet(2) as dpus:
        loaded = dpus.load(program.path.read_bytes())
        assert loaded.program.path == Path("<memory>")
        dpus.broadcast("value", np.uint32(9))
        dpus.launch()
        assert dpus.gather("result", np.uint64, 1).ravel().tolist() == [10, 10]
        with pytest.raises(pim.DpuProgramError) as info:
            dpus.load(b"garbage")
        assert info.value.call == "dpu_load_from_memory"


def test_build_program_caches_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYUPMEM_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "k.c"
    (tmp_path / "k.h").write_text("#define VALUE 3\n")
    source.write_text(
        '#include "k.h"\n#include <defs.h>\n__host int x = VALUE + EXTRA;\n'
        "int main(void) { return 0; }\n"
    )
    first = pim.build_program(source, nr_tasklets=2, defines={"EXTRA": 4})
    assert first.path.is_file()
    assert first.path.parent.parent.parent == tmp_path / "cache" / "programs"
    mtime = first.path.stat().st_mtime_ns
    again = pim.build_program(source, nr_tasklets=2, defines={"EXTRA": 4})
    assert again.path == first.path and again.path.stat().st_mtime_ns == mtime
    assert pim.build_program(source, nr_tasklets=3, defines={"EXTRA": 4}).path != first.path
    assert pim.build_program(source, nr_tasklets=2, defines={"EXTRA": 5}).path != first.path
    assert (
        pim.build_program(source, nr_tasklets=2, defines={"EXTRA": 4}, opt_level=0).path
        != first.path
    )
    (tmp_path / "k.h").write_text("#define VALUE 30\n")
    edited = pim.build_program(source, nr_tasklets=2, defines={"EXTRA": 4})
    assert edited.path != first.path
    with pim.DpuSet(1) as dpu:
        dpu.load(edited)
        assert dpu.read("x", np.int32, 1)[0] == 34


def test_build_program_include_dirs(tmp_path: Path) -> None:
    include = tmp_path / "inc"
    include.mkdir()
    (include / "shared.h").write_text("#define ANSWER 42\n")
    program = pim.build_program(
        '#include <defs.h>\n#include "shared.h"\n'
        "__host int x = ANSWER;\nint main(void) { return 0; }\n",
        include_dirs=[include],
        nr_tasklets=1,
    )
    with pim.DpuSet(1) as dpu:
        dpu.load(program)
        assert dpu.read("x", np.int32, 1)[0] == 42


def test_compile_error_carries_the_messages() -> None:
    with pytest.raises(pim.CompileError) as info:
        pim.build_program("int main(void) { return undeclared_thing; }\n", nr_tasklets=1)
    assert "undeclared_thing" in info.value.output
    assert info.value.returncode != 0
    assert "undeclared_thing" in str(info.value)


def test_build_program_rejects_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        pim.build_program("int main(void) { return 0; }\n", nr_tasklets=25)
    with pytest.raises(FileNotFoundError):
        pim.build_program(tmp_path / "missing.c")


def test_backend_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    emulator = find_backend("emulator")
    monkeypatch.setenv("PYUPMEM_LIBDPU", emulator.library)
    assert find_backend().kind == "emulator"
    monkeypatch.setenv("PYUPMEM_BACKEND", "sdk")
    sdk_view = find_backend()
    assert sdk_view.kind == "sdk" and sdk_view.library == emulator.library
    assert not sdk_view.lib.frees_error_strings
    monkeypatch.delenv("PYUPMEM_LIBDPU")
    monkeypatch.setenv("UPMEM_HOME", "/nonexistent")
    if not any(Path(d, "libdpu.so").exists() for d in ("/usr/lib", "/usr/local/lib")):
        with pytest.raises(pim.BackendError):
            find_backend()
    monkeypatch.setenv("PYUPMEM_BACKEND", "bogus")
    with pytest.raises(pim.BackendError):
        find_backend()
    monkeypatch.setenv("PYUPMEM_BACKEND", "emulator")
    assert find_backend().kind == "emulator"


def test_cli_info_and_env(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["info", "--profile", "nrRanks=2", "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)
    assert facts["backend"] == "emulator"
    assert (facts["dpus"], facts["ranks"]) == (128, 2)
    assert facts["compiler"].endswith("dpu-upmem-dpurte-clang")
    assert cli.main(["info"]) == 0
    text = capsys.readouterr().out
    assert "backend:  emulator" in text and "DPUs:     2560" in text and "ranks:    40" in text
    assert cli.main(["env"]) == 0
    lines = capsys.readouterr().out
    from pyupmem import emu

    assert lines == emu.build().shell_lines()


def test_cli_runs_as_a_module() -> None:
    env = dict(os.environ, PYUPMEM_EMU_NR_RANKS="3")
    result = subprocess.run(
        [sys.executable, "-m", "pyupmem", "info"], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    assert "DPUs:     192" in result.stdout


def test_cli_help_is_plain_text() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pyupmem", "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "info" in text and "env" in text and 'eval "$(python -m pyupmem env)"' in text
    for markup in ("``", ":mod:", ":class:", ":func:", "::\n"):
        assert markup not in text, f"reST markup {markup!r} in --help"


def test_phase_timer() -> None:
    timer = pim.PhaseTimer(warmup=2, extra_phases=["merge"])
    seen = []
    for rep in timer.repetitions(3):
        seen.append(rep)
        with timer.phase(pim.CPU_DPU):
            time.sleep(0.001)
        with timer.phase("kernel"):
            time.sleep(0.002)
        with timer.phase("kernel"):
            pass
        timer.add("merge", 0.5)
    assert seen == [-2, -1, 0, 1, 2]
    assert timer.phases() == [pim.CPU_DPU, pim.DPU_KERNEL, "merge"]
    assert len(timer.samples("DPU kernel")) == 3
    stats = timer.stats()
    assert stats["merge"].mean == pytest.approx(0.5)
    assert stats[pim.DPU_KERNEL].minimum >= 0.002
    table = timer.table()
    assert "CPU-DPU" in table and "DPU kernel" in table and "total" in table
    assert "3 measured repetitions, 2 warm-up" in table
    assert timer.total() == pytest.approx(sum(s.mean for s in stats.values()))


def test_phase_timer_refuses_misspelt_phases_and_units() -> None:
    timer = pim.PhaseTimer(warmup=0)
    with pytest.raises(ValueError, match="unknown phase 'kernal'. Did you mean 'kernel'"):
        with timer.phase("kernal"):
            pass
    with pytest.raises(pim.PyUpmemError, match="extra_phases"):
        timer.add("merge", 1.0)
    timer.add("kernel", 1.0)
    with pytest.raises(ValueError, match="unknown unit 'ns': use one of 's', 'ms', 'us'"):
        timer.table(unit="ns")
    with pytest.raises(ValueError, match="warmup must be a whole number"):
        pim.PhaseTimer(warmup=-1)
