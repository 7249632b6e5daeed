"""The emulator runs DPU programs correctly: 1, 64 and 640 DPUs, 1 and 16 tasklets, with
barriers, mutexes, a semaphore, handshakes, mem_alloc, seqread, perfcounter and printf."""

import subprocess

import pytest
from emu_support import PROGRAMS, build_dpu, build_host, run, toolchain_env


@pytest.mark.parametrize("nr_tasklets", [1, 16])
@pytest.mark.parametrize("nr_dpus", [1, 64, 640])
def test_everything_kernel_gives_exact_results(nr_dpus, nr_tasklets):
    dpu = build_dpu("everything.c", f"-DNR_TASKLETS={nr_tasklets}")
    host = build_host("run_everything.c")
    result = run([host, dpu, nr_dpus, nr_tasklets])
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "OK"
    # The last DPU's log, in the SDK's format, from the second launch only.
    last = nr_dpus - 1
    dpu_id = (last // 64) << 16 | ((last % 64) // 8) << 8 | (last % 8)
    assert f"=== DPU#0x{dpu_id:x} ===" in lines
    expected_total = 1000 * 999 // 2 + 1000 * last
    assert (
        lines.count(f"tasklets={nr_tasklets} total={expected_total} constant=1234567890abcdef") == 1
    )


@pytest.mark.parametrize("source", ["everything.c", "prim_vector_add.c"])
def test_dpu_programs_compile_without_warnings(source):
    """The DPU headers, and 32-bit address idioms (uint32_t <-> __mram_ptr casts)."""
    result = subprocess.run(
        ["dpu-upmem-dpurte-clang", "-O2", "-Wall", "-Wextra", "-DNR_TASKLETS=16", "-c",
         str(PROGRAMS / source), "-o", "/dev/null"],
        env=toolchain_env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0
    assert result.stderr == "", result.stderr


def test_rest_of_the_interface():
    dpu = build_dpu("faults.c", "-DNR_TASKLETS=4")
    host = build_host("api_tour.c", f'-DDPU_BINARY="{dpu}"')
    result = run([host], PYUPMEM_EMU_NR_RANKS="3")
    assert result.returncode == 0, result.stderr
    out = dict(token.split("=", 1) for token in result.stdout.split() if "=" in token)
    assert out["all_dpus"] == "192" and out["all_ranks"] == "3"
    assert out["alloc_when_full"] == "4"  # DPU_ERR_ALLOCATION
    assert out["rank0_dpus"] == "64" and out["counted"] == "192"
    assert out["ranks_for_100"] == "2"
    assert out["spin_ms_size"] == "4" and out["wram"] == "1"
    assert out["buffer_address"] == "0x8000000" and out["buffer_size"] == "8192"
    assert out["heap_address"] == "0x8002000"
    assert out["heap_size"] == str(64 * 2**20 - 0x2000)
    assert out["unknown"] == "29"
    assert out["symbol_transfers_and_callback"] == "1"
    assert out["nonblocking_sync_callback"] == "37"
    # SINGLE_CALL: once, with the whole set and index -1 (UINT32_MAX), as the SDK does.
    assert out["single_call_calls"] == "1"
    assert "single_call index=-1 dpus=100" in result.stdout
    assert out["reloaded_culprit"] == "0"  # a load resets WRAM
    assert out["different_programs"] == "17"
    assert "message=dpu is in fault" in result.stdout


def test_a_program_run_directly_explains_itself():
    result = run([build_dpu("faults.c")])
    assert result.returncode == 2
    assert "load it with dpu_load()" in result.stderr or "dpu_load()" in result.stderr


def test_emulator_sources_build_without_warnings(tmp_path):
    from pyupmem import emu

    src = emu.SOURCE_DIR / "src"
    common = ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared", f"-I{src}"]
    host = [
        *common,
        f"-I{emu.SOURCE_DIR / 'include' / 'host'}",
        *map(str, (src / "host").glob("*.c")),
    ]
    dpu_headers = ["-idirafter", str(emu.SOURCE_DIR / "include" / "dpu")]
    # (as emu.build does: memory.c against the alloc.h of src/dpulib/runtime_compat)
    runtime = [
        *common,
        f"-I{src / 'dpulib' / 'runtime_compat'}",
        *dpu_headers,
        *map(str, (src / "runtime").glob("*.c")),
    ]
    builds = [("libdpu.so", host), ("libdpurt.so", runtime)]
    for source in sorted((src / "dpulib").glob("*.c")):  # one object each, public headers
        flags = [flag for flag in common if flag != "-shared"]
        builds.append((f"{source.stem}.o", [*flags, "-c", *dpu_headers, str(source)]))
    for name, flags in builds:
        result = subprocess.run(
            [emu.host_compiler(), "-O2", *flags, "-o", str(tmp_path / name)],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0 and result.stderr == "", result.stderr


def test_prim_style_kernel_runs():
    """A kernel written as the PrIM benchmarks write theirs gives exact results."""
    import numpy as np

    import pyupmem as pim

    program = pim.build_program(PROGRAMS / "prim_vector_add.c", nr_tasklets=16)
    n = 10_000  # int32 per DPU: 40,000 bytes, not a multiple of the 256-byte block
    rng = np.random.default_rng(1)
    a = rng.integers(-(2**30), 2**30, (4, n), dtype=np.int32)
    b = rng.integers(-(2**30), 2**30, (4, n), dtype=np.int32)
    with pim.DpuSet(4) as dpus:
        dpus.load(program)
        arguments = np.zeros((), dpus.symbol("DPU_INPUT_ARGUMENTS").dtype)
        arguments["size"] = arguments["transfer_size"] = a[0].nbytes
        dpus.broadcast("DPU_INPUT_ARGUMENTS", arguments)
        dpus.scatter(pim.DPU_MRAM_HEAP_POINTER_NAME, a)
        dpus.scatter(pim.DPU_MRAM_HEAP_POINTER_NAME, b, offset=a[0].nbytes)
        dpus.launch()
        out = dpus.gather(pim.DPU_MRAM_HEAP_POINTER_NAME, np.int32, n, offset=a[0].nbytes)
    np.testing.assert_array_equal(out, a + b)
