"""SDK host programs build unchanged against the emulator: every host header of the SDK's
``include/dpu`` a program may include, the functions they declare, scatter-gather and FIFO
transfers from C, the energy probe, and the C++ API ``dpu.hpp``."""

from __future__ import annotations

import functools
import subprocess

import pytest
from emu_support import (
    build_cxx_host,
    build_dpu,
    build_host,
    cxx_compiler,
    emulator,
    run,
    toolchain_env,
)


@functools.cache
def host_headers_output() -> str:
    dpu = build_dpu("sg_kernel.c")
    result = run([build_host("host_headers.c"), dpu])
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "OK"
    return result.stdout


def values() -> dict[str, str]:
    found = {}
    for line in host_headers_output().splitlines():
        for token in line.split():
            if "=" in token:
                key, value = token.split("=", 1)
                found.setdefault(key, value)
    return found


# name: expected value, from host_headers.c.
EXPECTED = {
    "sg_not_activated": "41",  # DPU_ERR_SG_NOT_ACTIVATED
    "sg_round_trip": "1",
    "sg_too_many_blocks": "39",  # DPU_ERR_SG_TOO_MANY_BLOCKS (16 blocks, at most 8)
    "sg_length_mismatch": "40",  # DPU_ERR_SG_LENGTH_MISMATCH
    "sg_longer_than_length": "40",
    "sg_not_mram_symbol": "42",  # DPU_ERR_SG_NOT_MRAM_SYMBOL
    "sg_unknown_symbol": "29",
    "sg_single_dpu": "1",  # DPU_ERR_INTERNAL: the SDK does sets of ranks only
    "sg_zero_fill": "1",
    "fifo_link": "1",  # DPU_ERR_INTERNAL: no WRAM FIFOs in the emulator
    "fifo_prepare": "1",
    "fifo_push": "1",
    "cis": "8",
    "dpus_per_ci": "8",
    "mram": str(64 << 20),
    "type": "FUNCTIONAL_SIMULATOR",
    "trylock_while_locked": "1",
    "numa": "0",
    "target_masked_rank_id": "0",  # dpu_target_macros.h: the rank id without target bits
    "struct_foreach": "4",
    "matches": "1",
    "bad_profile_description": "28",
    "profile_clock": "400",
    "dpu_id": "0x3",
    "raw_mram": "1",
    "mram_beyond": "10",
    "wram_word": "16",
    "iram": "9",  # DPU_ERR_INVALID_IRAM_ACCESS: native code has no IRAM
    "program_is_common": "1",
    "common_program": "1",
    "checkpoint": "1",
    "checkpoint_all": "1",  # DPU_ERR_INTERNAL: no DPU registers or IRAM to save
    "checkpoint_wram_words": "16384",  # the whole WRAM, as the SDK saves it
    "runner_done": "1",
    "fault": "0",
    "other_thread": "6",  # DPU_ERR_INVALID_THREAD_ID
    "matrix": "1",
    "probe_energy": "0",
    "probe_time_ok": "1",
    "probe_stop_twice": "1",
    "pmc": "1",
    "elf": "24",
    "chip_idx": "11",
    "concat": "DPU_OK",
    "single_rank_dpus": "64",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_host_headers_program(name: str) -> None:
    assert values()[name] == EXPECTED[name]


def test_dpulog_read_for_dpu_writes_what_dpu_log_read_writes() -> None:
    out = host_headers_output()
    by_dpu = out.split("--- dpulog_read_for_dpu\n")[1].split("--- dpu_log_read\n")[0]
    by_set = out.split("--- dpu_log_read\n")[1].split("--- end\n")[0]
    assert by_dpu == by_set == "=== DPU#0x3 ===\nkernel ran: increment=1000 words=16\n"
    # dpulog_read_for_dpu_ (dpu_log_internals.h) prints the same without the header.
    assert "internals_log=kernel ran: increment=1000 words=16\n" in out


def test_error_messages_of_scatter_gather() -> None:
    assert "message=scatter/gather transfers not activated" in host_headers_output()


def test_unsupported_calls_say_so_on_stderr() -> None:
    result = subprocess.run(
        [str(build_host("host_headers.c")), str(build_dpu("sg_kernel.c"))],
        env=toolchain_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert (
        "dpu_fifo_push_xfer is not supported: the emulator has no DPU-side WRAM FIFOs"
        in result.stderr
    )
    assert result.stderr.count("dpu_link_input_fifo") == 1


def test_every_header_compiles_alone_in_c_and_cxx(tmp_path) -> None:
    """Each header includes what it needs, and builds as C11 and as C++."""
    headers = sorted(p.name for p in emulator().host_include.glob("*.h"))
    assert {
        "dpu_log.h",
        "dpu_probe.h",
        "dpu_types.h",
        "dpu_management.h",
        "dpu_memory.h",
        "dpu_program.h",
        "dpu_error.h",
        "dpu_macro_utils.h",
    } <= set(headers)
    cxx = cxx_compiler()
    for header in headers:
        source = tmp_path / "one.c"
        source.write_text(f"#include <{header}>\nint main(void) {{ return 0; }}\n")
        flags = [
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{emulator().host_include}",
            "-c",
            "-o",
            "/dev/null",
        ]
        result = subprocess.run(
            ["cc", "-std=c11", *flags, str(source)], capture_output=True, text=True
        )
        assert result.returncode == 0, (header, result.stderr)
        if cxx:
            result = subprocess.run(
                [cxx, "-std=c++17", "-x", "c++", *flags, str(source)],
                capture_output=True,
                text=True,
            )
            assert result.returncode == 0, (header, result.stderr)


@pytest.mark.skipif(cxx_compiler() is None, reason="no C++ compiler (g++ or c++) on PATH")
def test_cxx_api_allocates_loads_copies_execs_and_logs(tmp_path) -> None:
    dpu = build_dpu("sg_kernel.c")
    binary = tmp_path / "hpp_host"
    compiled = build_cxx_host("hpp_host.cpp", binary)
    assert compiled.returncode == 0, compiled.stderr
    result = run([binary, dpu])
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "dpus=3 ranks=1" in out
    assert "broadcast_and_per_dpu_copies=1" in out
    assert "scatter_gather=1" in out
    assert out.count("kernel ran: increment=5 words=4") == 3
    assert "=== DPU#0x2 ===" in out
    assert "error_caught=undefined symbol" in out
    assert "sg_not_activated=scatter/gather transfers not activated" in out
    assert out.splitlines()[-1] == "OK"
