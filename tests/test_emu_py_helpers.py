"""The Py_dpu_* functions of the emulator's libdpu, called through ctypes the way the UPMEM
SDK's Python module calls them (the argument and result types of its dpu/ffi.py)."""

from __future__ import annotations

import ctypes
import io
import struct
import sys
from collections.abc import Iterator
from ctypes import POINTER, byref, c_size_t, c_void_p, py_object

import pytest
from emu_support import build_dpu, emulator

from pyupmem.driver import libdpu as C

NR_DPUS = 4
N = 64  # uint32_t buffer[N] in sdk_python_kernel.c
INVALID_MEMORY_TRANSFER = 21
INVALID_DPU_SET = 5
SYSTEM = 2


class Sdk:
    """libdpu with the SDK module's declarations of the Py_ helpers."""

    def __init__(self) -> None:
        self.lib = C.LibDpu.open(emulator().libdpu, frees_error_strings=True)
        cdll = self.lib.cdll
        self.log_read = cdll.Py_dpu_log_read
        self.log_read.argtypes = [C.dpu_set_t, py_object]
        self.log_read.restype = C.dpu_error_t
        self.prepare_xfers = cdll.Py_dpu_prepare_xfers
        self.prepare_xfers.argtypes = [C.dpu_set_t, py_object, POINTER(c_size_t)]
        self.prepare_xfers.restype = C.dpu_error_t
        self.symbol_names = cdll.Py_dpu_get_symbol_names
        self.symbol_names.argtypes = [c_void_p]  # struct dpu_program_t *
        self.symbol_names.restype = py_object


@pytest.fixture(scope="module")
def sdk() -> Sdk:
    return Sdk()


@pytest.fixture
def loaded(sdk: Sdk) -> Iterator[tuple[C.dpu_set_t, c_void_p]]:
    dpu_set = C.dpu_set_t()
    assert sdk.lib.dpu_alloc(NR_DPUS, b"", byref(dpu_set)) == C.DPU_OK
    program = c_void_p()
    binary = str(build_dpu("sdk_python_kernel.c")).encode()
    try:
        assert sdk.lib.dpu_load(dpu_set, binary, byref(program)) == C.DPU_OK
        yield dpu_set, program
    finally:
        sdk.lib.dpu_free(dpu_set)


def _push(sdk: Sdk, dpu_set: C.dpu_set_t, buffers: list, to_dpu: bool) -> int:
    size = c_size_t()
    assert sdk.prepare_xfers(dpu_set, buffers, byref(size)) == C.DPU_OK
    xfer = C.DPU_XFER_TO_DPU if to_dpu else C.DPU_XFER_FROM_DPU
    status = sdk.lib.dpu_push_xfer(dpu_set, xfer, b"buffer", 0, size.value, C.DPU_XFER_DEFAULT)
    assert status == C.DPU_OK, sdk.lib.error_string(status)
    return size.value


def _words(seed: int) -> bytearray:
    return bytearray(struct.pack(f"<{N}I", *[seed * 1000 + i for i in range(N)]))


def test_symbol_names_list_every_symbol_dpu_get_symbol_finds(sdk, loaded):
    _, program = loaded
    names = sdk.symbol_names(program)
    assert isinstance(names, list) and all(isinstance(name, str) for name in names)
    assert names == sorted(set(names))
    kernel = {"factor", "dpu_index", "crash", "result", "scale", "negated", "buffer"}
    assert kernel <= set(names)
    assert C.DPU_MRAM_HEAP_POINTER_NAME in names
    for name in names:
        symbol = C.dpu_symbol_t()
        assert sdk.lib.dpu_get_symbol(program, name.encode(), byref(symbol)) == C.DPU_OK, name
    sizes = {}
    for name in ("result", "negated", "buffer"):
        symbol = C.dpu_symbol_t()
        sdk.lib.dpu_get_symbol(program, name.encode(), byref(symbol))
        sizes[name] = symbol.size
    assert sizes == {"result": 8, "negated": 16, "buffer": 4 * N}


def test_symbol_names_of_no_program_are_empty(sdk):
    # ctypes cannot take an exception from a py_object result: no program, no names.
    assert sdk.symbol_names(None) == []


def test_prepare_xfers_moves_one_buffer_per_dpu_and_skips_none(sdk, loaded):
    dpu_set, _ = loaded
    sent = [_words(d + 1) for d in range(NR_DPUS)]
    assert _push(sdk, dpu_set, sent, to_dpu=True) == 4 * N
    # None leaves a DPU out: DPU 1 keeps what it has, the others get new data.
    second = [_words(d + 10) for d in range(NR_DPUS)]
    second[1] = None
    assert _push(sdk, dpu_set, second, to_dpu=True) == 4 * N
    back = [bytearray(4 * N) for _ in range(NR_DPUS)]
    assert _push(sdk, dpu_set, back, to_dpu=False) == 4 * N
    assert back == [second[0], sent[1], second[2], second[3]]


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: tuple(bytearray(8) for _ in range(NR_DPUS)), id="a tuple"),
        pytest.param(lambda: [bytearray(8)] * (NR_DPUS - 1), id="one buffer short"),
        pytest.param(lambda: [bytes(8)] * NR_DPUS, id="read-only bytes"),
        pytest.param(lambda: [bytearray(8), bytearray(16), None, None], id="two lengths"),
        pytest.param(lambda: [bytearray(8), 3, None, None], id="not a buffer"),
    ],
)
def test_prepare_xfers_refuses_what_the_sdk_refuses(sdk, loaded, make):
    dpu_set, _ = loaded
    size = c_size_t(123)
    assert sdk.prepare_xfers(dpu_set, make(), byref(size)) == INVALID_MEMORY_TRANSFER
    assert size.value == 123


def test_prepare_xfers_of_only_none_gives_no_length(sdk, loaded):
    dpu_set, _ = loaded
    size = c_size_t()
    assert sdk.prepare_xfers(dpu_set, [None] * NR_DPUS, byref(size)) == C.DPU_OK
    assert size.value == 0xFFFFFFFF


def test_log_read_writes_what_dpu_log_read_writes(sdk, loaded):
    dpu_set, _ = loaded
    dpus = list(C.iter_dpus(sdk.lib, dpu_set))
    for index, dpu in enumerate(dpus):
        for name, value in ((b"dpu_index", index), (b"factor", 3)):
            data = (ctypes.c_uint32 * 1)(value)
            assert sdk.lib.dpu_copy_to(dpu, name, 0, data, 4) == C.DPU_OK
    _push(sdk, dpu_set, [_words(d) for d in range(NR_DPUS)], to_dpu=True)
    assert sdk.lib.dpu_launch(dpu_set, C.DPU_SYNCHRONOUS) == C.DPU_OK
    for index, dpu in enumerate(dpus):
        stream = io.StringIO()
        assert sdk.log_read(dpu, stream) == C.DPU_OK
        status, expected = C.read_log(sdk.lib, dpu)
        assert status == C.DPU_OK
        assert stream.getvalue() == expected.decode()
        total = 3 * sum(index * 1000 + i for i in range(N))
        assert stream.getvalue().startswith("=== DPU#0x")
        assert stream.getvalue().endswith(f"===\ndpu {index}: sum {total}\n")


def test_log_read_needs_one_dpu_and_reports_a_failing_stream(sdk, loaded, monkeypatch):
    dpu_set, _ = loaded
    assert sdk.log_read(dpu_set, io.StringIO()) == INVALID_DPU_SET

    class Broken:
        def write(self, text: str) -> int:
            raise OSError("disk full")

    shown: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda report: shown.append(report.exc_value))
    dpu = next(C.iter_dpus(sdk.lib, dpu_set))
    assert sdk.log_read(dpu, Broken()) == SYSTEM
    # The stream's exception is shown (ctypes would drop it), not left pending.
    assert [str(error) for error in shown] == ["disk full"]
