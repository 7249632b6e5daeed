"""Host-side checks of the emulated libdpu return the SDK's error codes."""

import functools

import pytest
from emu_support import build_dpu, build_host, parse_codes, run

EXPECTED = {
    "profile_no_equal": 28,  # DPU_ERR_INVALID_PROFILE
    "profile_bad_ranks": 28,
    "profile_bad_backend": 28,
    "too_many_dpus": 4,  # DPU_ERR_ALLOCATION
    "zero_dpus": 4,
    "launch_without_program": 16,  # DPU_ERR_NO_PROGRAM_LOADED
    "copy_without_program": 16,
    "no_such_file": 25,  # DPU_ERR_ELF_NO_SUCH_FILE
    "not_elf": 24,  # DPU_ERR_ELF_INVALID_FILE
    "not_dpu_program": 24,
    "too_many_tasklets": 38,  # DPU_ERR_TOO_MANY_TASKLETS
    "unknown_symbol": 29,  # DPU_ERR_UNKNOWN_SYMBOL
    "mram_offset_not_x8": 10,  # DPU_ERR_INVALID_MRAM_ACCESS
    "mram_length_not_x8": 10,
    "mram_beyond_64mib": 10,
    "mram_ok": 0,
    "wram_length_not_x4": 8,  # DPU_ERR_INVALID_WRAM_ACCESS
    "beyond_symbol": 11,  # DPU_ERR_INVALID_SYMBOL_ACCESS
    "beyond_small_symbol": 11,
    "mram_beyond_symbol": 11,
    "copy_from_multi": 5,  # DPU_ERR_INVALID_DPU_SET
    "log_read_multi": 5,
    "copy_from_single": 0,
    "bad_policy": 22,  # DPU_ERR_INVALID_LAUNCH_POLICY
    "bad_xfer": 21,  # DPU_ERR_INVALID_MEMORY_TRANSFER
    "mram_while_running": 12,  # DPU_ERR_MRAM_BUSY
    "wram_while_running": 20,  # DPU_ERR_DPU_ALREADY_RUNNING
    "launch_while_running": 20,
    "sync_with_short_timeout": 27,  # DPU_ERR_TIMEOUT (the emulator's dpu_emu_sync_timeout)
    "status_done_while_running": 0,
    "stop": 0,  # the spin lasts minutes: only stopping ends it
    "sync": 0,
    "status_done_after_sync": 1,
    "status_fault_after_sync": 0,
    "free_a_dpu": 5,  # only the set dpu_alloc gave can be freed
    "free": 0,
}


@functools.cache
def codes() -> dict[str, int]:
    # Uncounted: its spin (mode 9) then runs for wall-clock milliseconds, not modelled ones.
    faults = build_dpu("faults.c", "-DNR_TASKLETS=4", "-fpyupmem-no-cost")
    too_many = build_dpu("faults.c", "-DNR_TASKLETS=25")
    result = run([build_host("host_checks.c"), faults, too_many])
    assert result.returncode == 0, result.stderr
    return parse_codes(result.stdout)


@pytest.mark.parametrize("check", sorted(EXPECTED))
def test_host_check_returns_sdk_code(check):
    assert codes()[check] == EXPECTED[check]
