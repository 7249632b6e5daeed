"""Every error path of the Python API raises the documented exception with the right
libdpu code, and leaves the set usable."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

import pyupmem as pim
from pyupmem.driver import libdpu as C
from pyupmem.driver.backend import Backend, find_backend
from pyupmem.errors import make_error

KERNEL = r"""
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>
__host uint32_t mode;
__host uint32_t loops;
__host uint64_t result;
__host uint8_t wram_buf[64];
__mram_noinit uint8_t mram_buf[4096];
int main(void)
{
    if (me() != 0)
        return 0;
    volatile uint64_t counter = 0;
    if (mode == 1) {
        uint64_t x[2];
        printf("about to fault\n");
        mram_read((__mram_ptr void *)((uintptr_t)mram_buf + 4), x, 8);
    } else if (mode == 2) {
        for (uint32_t i = 0; i < loops; i++)
            counter++;
    }
    result = 1;
    return 0;
}
"""


@pytest.fixture(scope="module")
def program() -> pim.Program:
    return pim.build_program(KERNEL, nr_tasklets=2, name="errors_kernel")


@pytest.fixture
def dpus(program: pim.Program):
    # Strict mode: the unaligned mram_read of FAULTY faults instead of warning.
    with pim.DpuSet(4, profile="nrRanks=1,emuStrict=true") as dpus:
        dpus.load(program)
        yield dpus


def assert_usable(dpus: pim.DpuSet) -> None:
    dpus.broadcast("mode", np.uint32(0))
    dpus.broadcast("result", np.uint64(0))
    dpus.launch()
    assert dpus.gather("result", np.uint64, 1).ravel().tolist() == [1] * len(dpus)


def expect(cls: type[pim.DpuError], code: int, before_call: bool | None = None):
    class Check:
        def __enter__(self):
            self.raises = pytest.raises(cls)
            self.info = self.raises.__enter__()
            return self.info

        def __exit__(self, *exc):
            suppressed = self.raises.__exit__(*exc)
            error = self.info.value
            assert error.code == code, error
            assert error.name == C.ERROR_NAMES[code]
            assert error.message == C.ERROR_MESSAGES[code]
            assert error.call
            if before_call is not None:
                assert error.before_call is before_call
            return suppressed

    return Check()


def test_allocation_errors() -> None:
    with expect(pim.DpuAllocationError, 4, before_call=False) as info:
        pim.DpuSet(65, profile="nrRanks=1")
    assert info.value.call == "dpu_alloc" and "65 DPUs" in str(info.value)
    with expect(pim.DpuAllocationError, 4, before_call=False):
        pim.DpuSet(nr_ranks=2, profile="nrRanks=1")
    with pytest.raises(ValueError):
        pim.DpuSet(4, nr_ranks=1)


@pytest.mark.parametrize("arguments", [{"nr_dpus": 0}, {"nr_dpus": -3}, {"nr_ranks": 0},
                                       {"nr_ranks": -1}, {"nr_dpus": np.int64(0)}])
def test_a_count_that_is_not_positive_is_an_argument_error(
    arguments: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_libdpu(*args: object) -> None:
        raise AssertionError("the count must be checked before any backend is found")

    monkeypatch.setattr("pyupmem.dpus.dpuset.find_backend", no_libdpu)
    with pytest.raises(pim.ArgumentValueError) as caught:
        pim.DpuSet(**arguments)
    (label, value), = arguments.items()
    assert f"{label} must be a positive number of" in str(caught.value)
    assert f"got {value}" in str(caught.value) and "pyupmem.ALL" in str(caught.value)
    assert not isinstance(caught.value, pim.DpuAllocationError)


@pytest.mark.parametrize("value", ["4", 4.0, True, [4]])
def test_a_count_that_is_not_an_int_is_a_type_error(
    value: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pyupmem.dpus.dpuset.find_backend", lambda *args: 1 / 0)
    with pytest.raises(pim.ArgumentTypeError, match="nr_dpus must be an int"):
        pim.DpuSet(value)  # type: ignore[arg-type]


def test_invalid_profile() -> None:
    with expect(pim.DpuProfileError, 28) as info:
        pim.DpuSet(1, profile="notakeyvalue")
    assert info.value.call == "dpu_alloc"


def test_load_errors(dpus: pim.DpuSet, tmp_path: Path) -> None:
    with expect(pim.DpuProgramError, C.DPU_ERR_ELF_NO_SUCH_FILE) as info:
        dpus.load(tmp_path / "missing")
    assert info.value.call == "dpu_load"
    junk = tmp_path / "junk"
    junk.write_bytes(b"not an ELF file at all")
    with expect(pim.DpuProgramError, C.DPU_ERR_ELF_INVALID_FILE):
        dpus.load(junk)


def test_no_program_loaded(program: pim.Program) -> None:
    with pim.DpuSet(2) as dpus:
        with expect(pim.DpuProgramError, 16, before_call=True):
            dpus.symbol("mode")
        # A transfer by name is refused before libdpu: no program is the problem, not
        # the data's type or size (a Python int, a gather without shape=).
        with expect(pim.DpuProgramError, 16, before_call=True) as info:
            dpus.broadcast("mode", np.uint32(1))
        assert info.value.call == "dpu_broadcast_to"
        with expect(pim.DpuProgramError, 16, before_call=True):
            dpus.broadcast("mode", 1)
        with expect(pim.DpuProgramError, 16, before_call=False):
            dpus.launch()
        with expect(pim.DpuProgramError, 16, before_call=True):
            dpus.gather("mode", np.uint32)
        dpus.load(program)
        assert_usable(dpus)


def test_unknown_symbol(dpus: pim.DpuSet) -> None:
    for action in (
        lambda: dpus.symbol("nope"),
        lambda: dpus.broadcast("nope", np.uint32(1)),
        lambda: dpus.scatter("nope", np.zeros((4, 2), np.uint32)),
        lambda: dpus.gather("nope", np.uint32, 2),
        lambda: dpus[0].read("nope", np.uint32, 2),
        lambda: dpus[0].write("nope", np.uint32(2)),
    ):
        with expect(pim.DpuSymbolError, 29) as info:
            action()
        assert info.value.call == "dpu_get_symbol" and "'nope'" in str(info.value)
        assert isinstance(info.value, LookupError)
    assert_usable(dpus)


@pytest.mark.parametrize(
    "action, code, words",
    [
        (lambda d: d.broadcast("mram_buf", np.zeros(4, np.uint8)), 10, "multiples of 8"),
        (lambda d: d.broadcast("mram_buf", np.zeros(8, np.uint8), offset=4), 10, "multiples of 8"),
        (lambda d: d[0].write("mram_buf", np.zeros(12, np.uint8)), 10, "pad the data"),
        (lambda d: d[0].read("mram_buf", np.uint8, 6), 10, "multiples of 8"),
        (lambda d: d.gather("mram_buf", np.uint8, 8, offset=2), 10, "multiples of 8"),
        (lambda d: d.scatter("mram_buf", np.zeros((4, 3), np.uint8)), 10, "pad=True"),
        (lambda d: d.broadcast("wram_buf", np.zeros(2, np.uint8)), 8, "multiples of 4"),
        (lambda d: d.broadcast("wram_buf", np.zeros(4, np.uint8), offset=2), 8, "multiples of 4"),
        (lambda d: d.gather("mode", np.uint16, 1, raw=True), 8, "multiples of 4"),
        (lambda d: d.broadcast("wram_buf", np.zeros(68, np.uint8)), 11, "exceeds the 64 bytes"),
        (lambda d: d.broadcast("mram_buf", np.zeros(8, np.uint8), offset=4096), 11, "exceeds"),
        (lambda d: d.gather("mram_buf", np.uint64, 513), 11, "exceeds"),
        (lambda d: d[1].read("result", np.uint64, 2), 11, "exceeds"),
        (lambda d: d.broadcast("mode", np.uint32(1), offset=-4), 11, "negative"),
        (lambda d: d.scatter("mram_buf", np.zeros((3, 8), np.uint8)), 36, "one share per DPU"),
        (lambda d: d.scatter("mram_buf", [b"12345678"] * 5), 36, "5 for 4 DPUs"),
        (lambda d: d.scatter("mram_buf", [b"12345678"] * 3 + [b"1234"]), 36, "pad=True"),
        (lambda d: d.gather("mram_buf", out=np.zeros((3, 8), np.uint8)), 36, "one row per DPU"),
        (lambda d: d.gather("mram_buf", out=np.zeros((4, 16), np.uint8)[:, ::2]), 36, "contiguous"),
        (lambda d: d[0].read("mram_buf", out=b"12345678"), 36, "writable"),
    ],
)
def test_memory_rules_are_checked_before_the_call(dpus: pim.DpuSet, action, code, words) -> None:
    with expect(pim.DpuAccessError, code, before_call=True) as info:
        action(dpus)
    assert words in str(info.value)
    assert isinstance(info.value, ValueError)
    assert_usable(dpus)


def test_the_library_agrees_with_the_checks(dpus: pim.DpuSet) -> None:
    """The emulator returns the codes that pyupmem's checks anticipate."""
    backend = dpus.backend
    lib = backend.lib
    one = dpus[0]._c
    data = (ctypes.c_uint8 * 16)()
    assert lib.dpu_copy_to(one, b"mram_buf", 0, data, 4) == 10
    assert lib.dpu_copy_to(one, b"wram_buf", 2, data, 4) == 8
    assert lib.dpu_copy_to(one, b"wram_buf", 64, data, 4) == 11
    assert lib.dpu_copy_to(one, b"nope", 0, data, 4) == 29
    assert lib.dpu_copy_from(dpus._c, b"mode", 0, data, 4) == 5
    assert lib.dpu_log_read(dpus._c, None) == 5
    # And each status maps to the documented class.
    for code, cls in [
        (4, pim.DpuAllocationError),
        (5, pim.DpuSetError),
        (8, pim.DpuAccessError),
        (10, pim.DpuAccessError),
        (11, pim.DpuAccessError),
        (12, pim.DpuBusyError),
        (16, pim.DpuProgramError),
        (20, pim.DpuBusyError),
        (23, pim.DpuFaultError),
        (28, pim.DpuProfileError),
        (29, pim.DpuSymbolError),
        (27, pim.DpuTimeoutError),
    ]:
        error = backend.status_error(code, "dpu_x")
        assert type(error) is cls and error.code == code and error.call == "dpu_x"


def test_single_dpu_operations_on_a_larger_set(dpus: pim.DpuSet) -> None:
    with expect(pim.DpuSetError, 5, before_call=True) as info:
        dpus.read("mode", np.uint32, 1)
    assert "gather()" in str(info.value)
    with expect(pim.DpuSetError, 5, before_call=True):
        dpus.log()
    with expect(pim.DpuSetError, 5, before_call=True):
        dpus.ranks[0].read("mode", np.uint32, 1)
    assert_usable(dpus)


def test_python_scalars_are_refused_without_a_type(dpus: pim.DpuSet) -> None:
    with pytest.raises(TypeError, match="numpy scalar"):
        dpus.broadcast("mode", 5, raw=True)
    with pytest.raises(TypeError, match="buffer protocol"):
        dpus.broadcast("mode", [1, 2], raw=True)
    with pytest.raises(TypeError, match="broadcast"):
        dpus.scatter("mram_buf", b"12345678")


def test_busy_while_running(dpus: pim.DpuSet) -> None:
    dpus.broadcast("mode", np.uint32(2))
    dpus.broadcast("loops", np.uint32(150_000_000))
    dpus.launch(asynchronous=True)
    try:
        with expect(pim.DpuBusyError, 20) as info:
            dpus.launch()
        assert info.value.call == "dpu_launch"
        with expect(pim.DpuBusyError, 12):
            dpus.broadcast("mram_buf", np.zeros(8, np.uint8))
        assert dpus.status() == (False, False)
    finally:
        dpus.sync()
    assert_usable(dpus)


def test_fault_carries_the_dpu_message_and_reload_recovers(dpus: pim.DpuSet) -> None:
    dpus.scatter("mode", np.array([[0], [1], [0], [1]], np.uint32))
    with expect(pim.DpuFaultError, 23, before_call=False) as info:
        dpus.launch()
    error = info.value
    assert error.call == "dpu_launch"
    assert sorted(error.faults) == [1, 3]
    assert all(m.startswith("DPU fault: ") for m in error.faults.values())
    assert "not 8-byte aligned" in error.faults[1]
    assert "DPU 1: DPU fault:" in str(error) and "Reload" in str(error)
    assert dpus.status() == (True, True)
    assert dpus[1].log().startswith("about to fault\n")
    with expect(pim.DpuFaultError, 23):
        dpus.launch()
    dpus.load(dpus.program.program)
    assert_usable(dpus)


def test_async_fault_is_reported_by_sync(dpus: pim.DpuSet) -> None:
    dpus.scatter("mode", np.array([[1], [0], [0], [0]], np.uint32))
    dpus.launch(asynchronous=True)
    with expect(pim.DpuFaultError, 23) as info:
        dpus.sync()
    assert info.value.call == "dpu_sync" and list(info.value.faults) == [0]
    dpus.load(dpus.program.program)
    assert_usable(dpus)


def test_freed_set_refuses_everything(program: pim.Program) -> None:
    dpus = pim.DpuSet(2)
    dpus.load(program)
    first, rank = dpus[0], dpus.ranks[0]
    dpus.free()
    dpus.free()  # twice is fine
    assert dpus.closed
    for action in (
        lambda: dpus.launch(),
        lambda: dpus.broadcast("mode", np.uint32(1)),
        lambda: dpus.gather("mode", np.uint32, 1),
        lambda: first.read("mode", np.uint32, 1),
        lambda: rank.launch(),
        lambda: list(dpus),
        lambda: dpus.logs(),
        lambda: dpus.load(program),
    ):
        with expect(pim.DpuSetError, 5, before_call=True) as info:
            action()
        assert "freed" in str(info.value)


def test_sdk_codes_are_mapped_by_message() -> None:
    """An SDK that numbers codes differently (2020.x: 20 is DPU_FAULT) maps by message."""

    class FakeLib:
        def error_string(self, status: int) -> str:
            return {20: "dpu is in fault", 26: "undefined symbol", 99: "something new"}[status]

    fake = Backend("sdk", "libdpu.so", None, FakeLib())  # type: ignore[arg-type]
    fault = fake.status_error(20, "dpu_launch")
    assert type(fault) is pim.DpuFaultError and fault.code == 23
    symbol = fake.status_error(26, "dpu_copy_to")
    assert type(symbol) is pim.DpuSymbolError and symbol.code == 29
    unknown = fake.status_error(99, "dpu_x")
    assert type(unknown) is pim.DpuError and unknown.message == "something new"


def test_async_error_bits() -> None:
    error = make_error(C.DPU_ERR_ASYNC_JOBS | (3 << 16) | 10, "dpu_sync")
    assert isinstance(error, pim.DpuAccessError)
    assert error.name == "DPU_ERR_INVALID_MRAM_ACCESS"


def test_backend_of_a_library_that_does_not_load(tmp_path: Path) -> None:
    bogus = tmp_path / "libdpu.so"
    bogus.write_text("nope")
    with pytest.raises(pim.BackendError):
        find_backend("sdk", bogus)


def test_allocation_error_says_what_is_free_and_how_to_get_more():
    import pyupmem as pim

    with pim.DpuSet(64, profile="nrRanks=2"):
        with pytest.raises(pim.DpuAllocationError) as caught:
            pim.DpuSet(65, profile="nrRanks=2")
    assert caught.value.code == 4
    assert "64 DPUs (1 ranks) are free now" in str(caught.value)
    # the user's own nrRanks is what limits them, and the message says so
    assert "raise nrRanks (your profile gives nrRanks=2" in str(caught.value)


def test_allocation_errors_name_only_what_the_user_set(monkeypatch: pytest.MonkeyPatch):
    import pyupmem as pim

    monkeypatch.setenv("PYUPMEM_EMU_NR_RANKS", "1")
    with pytest.raises(pim.DpuAllocationError) as caught:
        pim.DpuSet(65)
    message = str(caught.value)
    assert "asked for 65 DPUs" in message
    # pyupmem adds emuPrintFaults=false to every emulator profile: never the user's doing
    assert "profile" not in message.split("Fix:")[0] and "emuPrintFaults" not in message
    assert "raise PYUPMEM_EMU_NR_RANKS (now 1" in message and "your profile" not in message

    monkeypatch.delenv("PYUPMEM_EMU_NR_RANKS")
    with pytest.raises(pim.DpuAllocationError) as caught:
        pim.DpuSet(nr_ranks=10_000)
    message = str(caught.value)
    assert "emuPrintFaults" not in message and "your profile" not in message
    assert "for instance set PYUPMEM_EMU_NR_RANKS=N" in message
    assert "or give this set the profile key nrRanks=N" in message

    with pytest.raises(pim.DpuAllocationError) as caught:
        pim.DpuSet(nr_ranks=10_000, profile="emuStrict=true", strict=None)
    assert "with profile 'emuStrict=true'" in str(caught.value)
