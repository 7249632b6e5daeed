"""The SDK headers the emulator adds, on both sides: each compiles on its own as C11 and as
C++17, and a program uses each function. DPU side: the buddy allocator, the fixed-size
block allocator, the WRAM FIFOs, the profiling macros, the constants of
dpu_characteristics.h, dpuconst.h and dpufault.h, the macros of dpuruntime.h,
macro_utils.h and memmram_utils.h, and the attributes that <stdio.h> and <stdlib.h>
bring. Host side: dpu_config.h, dpu_custom.h, dpu_debug.h, dpu_loader.h, dpu_profiler.h
and the C++ header <dpu>."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

import numpy as np
import pytest
from emu_support import (
    PROGRAMS,
    build_cxx_host,
    build_dpu,
    build_host,
    cxx_compiler,
    emulator,
    parse_codes,
    run,
    toolchain_env,
)

import pyupmem as pim

NEW_DPU_HEADERS = {
    "buddy_alloc.h",
    "fsb_allocator.h",
    "profiling.h",
    "soft_cache.h",
    "wramfifo.h",
    "dpuruntime.h",
    "dpuconst.h",
    "dpu_characteristics.h",
    "dpufault.h",
    "macro_utils.h",
    "memmram_utils.h",
    "stdlib.h",
}
NEW_HOST_HEADERS = {"dpu_config.h", "dpu_custom.h", "dpu_debug.h", "dpu_loader.h", "dpu_profiler.h"}
STRICT = ("-Wall", "-Wextra", "-Werror")
NR_RESULTS = 32
DPU_ERR_INTERNAL = 1
DPU_ERR_ELF_INVALID_FILE = 24


def _compile(compiler: str | Path, source: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(compiler), *flags, "-c", "-o", "/dev/null", str(source)],
        env=toolchain_env(),
        capture_output=True,
        text=True,
    )


# --------------------------------------------------------------- each header on its own


def test_every_dpu_header_compiles_alone_in_c11_and_cxx17(tmp_path: Path) -> None:
    """With the DPU compilers (dpu-upmem-dpurte-clang and the SDK layout's clang++), as
    DPU programs are built."""
    headers = sorted(p.name for p in emulator().dpu_include.glob("*.h"))
    assert NEW_DPU_HEADERS <= set(headers)
    cxx = emulator().upmem_home / "bin" / "clang++"
    for header in headers:
        c_source = tmp_path / "one.c"
        c_source.write_text(f"#include <{header}>\nint main(void) {{ return 0; }}\n")
        result = _compile("dpu-upmem-dpurte-clang", c_source, "-std=c11", *STRICT)
        assert result.returncode == 0, (header, result.stderr)
        if cxx_compiler():
            cxx_source = tmp_path / "one.cpp"
            cxx_source.write_text(c_source.read_text())
            result = _compile(cxx, cxx_source, "-std=c++17", *STRICT)
            assert result.returncode == 0, (header, result.stderr)


def test_new_host_headers_compile_alone_in_c11_and_cxx17(tmp_path: Path) -> None:
    include = emulator().host_include
    assert NEW_HOST_HEADERS <= {p.name for p in include.glob("*.h")}
    for header in sorted(NEW_HOST_HEADERS):
        source = tmp_path / "one.c"
        source.write_text(f"#include <{header}>\nint main(void) {{ return 0; }}\n")
        result = _compile("cc", source, "-std=c11", *STRICT, f"-I{include}")
        assert result.returncode == 0, (header, result.stderr)
        if cxx_compiler():
            result = _compile(
                cxx_compiler(), source, "-x", "c++", "-std=c++17", *STRICT, f"-I{include}"
            )
            assert result.returncode == 0, (header, result.stderr)


@pytest.mark.skipif(cxx_compiler() is None, reason="no C++ compiler (g++ or c++) on PATH")
def test_cxx_header_dpu_compiles_alone_as_cxx17(tmp_path: Path) -> None:
    include = emulator().host_include
    assert (include / "dpu").is_file()
    source = tmp_path / "one.cpp"
    source.write_text("#include <dpu>\nint main() { return dpu::ALLOCATE_ALL == 0; }\n")
    result = _compile(cxx_compiler(), source, "-std=c++17", *STRICT, f"-I{include}")
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------- DPU side


@functools.cache
def _program(*flags: str) -> Path:
    return build_dpu("sdk_headers.c", "-g", *STRICT, *flags)


def _launch(mode: int, nr_tasklets: int = 1, *flags: str) -> pim.DpuSet:
    dpus = pim.DpuSet(1, backend="emulator")
    dpus.load(_program(f"-DNR_TASKLETS={nr_tasklets}", *flags))
    dpus.broadcast("mode", np.uint32(mode))
    dpus.launch()
    return dpus


@functools.cache
def _results(mode: int, nr_tasklets: int = 1) -> tuple[int, ...]:
    with _launch(mode, nr_tasklets) as dpus:
        return tuple(int(x) for x in dpus.gather("results", np.uint32, NR_RESULTS)[0])


BUDDY = {
    0: 1,  # buddy_alloc before buddy_init: NULL, errno EINVAL
    1: 64,  # 33 bytes take a 64-byte block: the next block is 64 bytes on
    2: 1,  # 8-aligned blocks
    3: 16,  # 1 byte takes the smallest block, 16 bytes
    4: 1,  # buddy_free of an address inside a block frees it: the block comes back
    5: 2,  # buddy_free of a free block, and of an unaligned address: EINVAL
    6: 1,  # buddy_alloc(0): NULL, EINVAL
    7: 1,  # more than the heap: NULL, EINVAL
    8: 1,  # no free block that big: NULL, ENOMEM
    9: 1,  # buddy_realloc to a bigger block keeps the contents
    10: 1,  # to a smaller size: in place
    11: 1,  # buddy_realloc(NULL, n) allocates
    12: 1,  # buddy_realloc(p, 0) frees p and returns it
    13: 1,  # ... so freeing it again is EINVAL
    14: 1,  # after buddy_reset the whole heap is one block
    15: 256,  # 4096 bytes hold 256 blocks of 16
    16: 1,  # the 257th: NULL, ENOMEM
    17: 1,  # every other block freed: still no 32-byte block
    18: 1,  # all freed: merged back into the whole heap
    19: 1,  # a second buddy_init did not change the heap's size
}


@pytest.mark.parametrize("index", sorted(BUDDY))
def test_buddy_allocator(index: int) -> None:
    assert _results(0)[index] == BUDDY[index]


FSB = {
    0: 1,  # fsb_alloc(12, 5) gives 5 blocks
    1: 1,  # then NULL
    2: 16,  # 12 bytes rounded up to 16
    3: 1,  # 8-aligned
    4: 1,  # freed blocks come back, last freed first
    5: 8,  # a block size of 0 gives 8-byte blocks
    6: 88,  # mem_alloc between: 8 + 3 x 24 + the free-list head (rounded to 8)
    7: 10,  # four tasklets share a 10-block allocator: 10 blocks in all
    8: 1,  # ... each given once
}


@pytest.mark.parametrize("index", sorted(FSB))
def test_fixed_size_block_allocator(index: int) -> None:
    assert _results(1, 4)[index] == FSB[index]


def test_fsb_alloc_faults_when_wram_is_exhausted() -> None:
    dpus = pim.DpuSet(1, backend="emulator")
    with dpus:
        dpus.load(_program("-DNR_TASKLETS=1"))
        dpus.broadcast("mode", np.uint32(6))
        with pytest.raises(pim.DpuFaultError) as caught:
            dpus.launch()
    assert "WRAM exhausted" in str(caught.value)


CONSTANTS = {
    0: 24,  # DPU_NR_THREADS
    1: 256,  # DPU_NR_ATOMIC_BITS
    2: 24,  # DPU_NR_WORK_REGS
    3: 24,  # __DPU_NUMBER_OF_THREADS
    4: 26,  # __DPU_MRAM_SIZE_LOG2
    5: 1,  # __FAULT_ALLOC_HEAP_FULL__
    6: 2,  # __FAULT_DIVISION_BY_ZERO__
    7: 3,  # __FAULT_ASSERT_FAILED__
    8: 4,  # __FAULT_HALT__
    9: 5,  # __FAULT_PRINTF_OVERFLOW__
    10: 6,  # __FAULT_ALREADY_PROFILING__
    11: 7,  # __FAULT_NOT_PROFILING__
    12: 16,  # DMA_ALIGNED(13)
    13: 3,  # MIN(9, 3)
    14: 32,  # ALIGN(17, 16)
    15: 8,  # MRAM_CACHE_SIZE
    16: 31,  # count_leading_zeros(1)
    17: 8,  # count_population(0xF0F0)
    18: 8,  # sizeof(thread_stack_t): two 32-bit words
    19: 1,  # likely / unlikely keep the value
    20: 0xFF,  # __EMPTY_WAIT_QUEUE
    21: 0b111,  # __FOR_EACH_THREAD(x) with 3 tasklets: x(2) x(1) x(0)
    22: 1,  # __CONCAT expands its arguments: t3
    23: 0xFFFFFFFF,  # PROFILING_RESET_VALUE
    24: 1,  # struct dpu_input_fifo_t: two uint64_t, two pointers, two uint32_t
    25: 24,  # dpu_profiling_t: a start and a count per tasklet
    26: 16,  # WRAM_FIFO_SIZE(4)
    27: 5,  # MASK_WRAM_FIFO_PTR(4, 37)
    28: 1,  # fsb_allocator_t is a pointer (void **)
    29: 1,  # soft_cache.h brings __mram_ptr
}


@pytest.mark.parametrize("index", sorted(CONSTANTS))
def test_constants_and_macros(index: int) -> None:
    assert _results(3, 3)[index] == CONSTANTS[index]


def _profile(nr_tasklets: int, *flags: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    with _launch(2, nr_tasklets, *flags) as dpus:
        section = dpus.gather("section", np.uint32, 2 * nr_tasklets, raw=True)[0]
        grew = dpus.gather("per_tasklet", np.uint32, nr_tasklets)[0]
    return section[:nr_tasklets], section[nr_tasklets:], grew


def test_profiling_counts_each_tasklets_cycles_in_the_section() -> None:
    start, count, grew = _profile(4, "-DDPU_PROFILING")
    assert (start == 0xFFFFFFFF).all()  # stopped: back to PROFILING_RESET_VALUE
    assert (count > 1000).all(), count  # 2 x 20000 loop rounds, each several cycles
    assert (grew == 1).all()  # the second start/stop added to the first


def test_profiling_does_nothing_without_dpu_profiling() -> None:
    start, count, _ = _profile(4)
    assert (start == 0xFFFFFFFF).all()
    assert (count == 0).all()


@pytest.mark.parametrize(
    ("mode", "code", "line"),
    [
        (4, "__FAULT_ALREADY_PROFILING__", "profiling_start(&section);\n        break;"),
        (5, "__FAULT_NOT_PROFILING__", "profiling_stop(&section);\n        break;"),
    ],
)
def test_profiling_misuse_faults_naming_the_line(mode: int, code: str, line: str) -> None:
    source = (PROGRAMS / "sdk_headers.c").read_text()
    number = source[: source.index(line)].count("\n") + 1
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(_program("-DNR_TASKLETS=1", "-DDPU_PROFILING"))
        dpus.broadcast("mode", np.uint32(mode))
        with pytest.raises(pim.DpuFaultError) as caught:
            dpus.launch()
    message = str(caught.value)
    assert code in message
    assert f"sdk_headers.c:{number}" in message


# --------------------------------------------------------------- WRAM FIFOs


def _fifo(mode: int, inputs: list[int], nr_tasklets: int = 4) -> dict[str, np.ndarray]:
    program = build_dpu("sdk_wramfifo.c", "-g", *STRICT, f"-DNR_TASKLETS={nr_tasklets}")
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.broadcast("mode", np.uint32(mode))
        data = np.zeros(16, dtype=np.uint64)
        data[: len(inputs)] = inputs
        dpus.broadcast("__input_data", data.tobytes(), raw=True)
        dpus.broadcast("input", np.uint64(len(inputs)).tobytes(), offset=8, raw=True)  # write_ptr
        dpus.launch()

        def words(name: str, nbytes: int) -> np.ndarray:
            raw = dpus.gather(name, np.uint8, nbytes, raw=True)[0]
            return np.frombuffer(raw.tobytes(), np.uint64)

        return {
            "input": words("input", 16),  # read_ptr, write_ptr
            "output": words("output", 16),
            "output_data": words("__output_data", 128),
            "small": words("small", 16),
            "small_data": words("__small_data", 32),
            "full_after": dpus.gather("full_after", np.uint32, 8)[0],
            "empty_before": dpus.gather("empty_before", np.uint32, 1)[0],
            "seen": dpus.gather("tasklets_seen", np.uint32, 1)[0],
        }


def test_process_inputs_each_tasklet_answers_every_input() -> None:
    inputs = list(range(3, 15))
    state = _fifo(0, inputs)
    assert list(state["input"]) == [12, 12]  # read_ptr caught up with write_ptr
    assert list(state["output"]) == [0, 12]  # the host's read_ptr, 12 outputs written
    assert sorted(state["output_data"][:12]) == [x * x + 1 for x in inputs]
    assert state["seen"][0] != 0


def test_process_inputs_all_tasklets_reduces_each_input_over_the_tasklets() -> None:
    inputs = [1, 5, 9, 100]
    state = _fifo(1, inputs)
    assert list(state["input"]) == [4, 4]
    assert list(state["output"]) == [0, 4]
    # every tasklet t adds x * (t + 1): x * (1 + 2 + 3 + 4), in the inputs' order
    assert list(state["output_data"][:4]) == [10 * x for x in inputs]


def test_fifo_element_functions_and_a_full_output_fifo() -> None:
    state = _fifo(2, [7, 8, 9, 10, 11, 12], nr_tasklets=1)
    assert state["empty_before"][0] == 0
    # four elements fit in `small` (ptr_size 2): full after the fourth push, then it stops
    assert list(state["full_after"][:5]) == [1, 1, 1, 2, 0]
    assert list(state["small_data"]) == [107, 108, 109, 110]
    assert list(state["small"]) == [0, 4]
    assert list(state["input"]) == [5, 6]  # the fifth input was popped, not pushed


def test_empty_input_fifo_with_active_zero_returns_at_once() -> None:
    state = _fifo(0, [])
    assert list(state["input"]) == [0, 0]
    assert list(state["output"]) == [0, 0]


# --------------------------------------------------------------- stdio.h, stdlib.h


@pytest.mark.parametrize(
    ("source", "seen"),
    [("sdk_stdio_attributes.c", 3 + 64 + 8), ("sdk_stdlib_attributes.c", 6 + 64 + 8)],
)
def test_stdio_and_stdlib_bring_the_dpu_attributes(source: str, seen: int) -> None:
    with pim.DpuSet(1, backend="emulator") as dpus:
        loaded = dpus.load(build_dpu(source, "-g", *STRICT))
        dpus.launch()
        assert int(dpus.gather("seen", np.uint32, 1)[0][0]) == seen
        assert loaded.symbol("in_mram").address >= 0x08000000  # __mram: in MRAM
        assert loaded.symbol("seen").address < 0x08000000  # __host: in WRAM
        if "stdio" in source:
            assert dpus.logs() == [f"stdio seen={seen}\n"]


# --------------------------------------------------------------- host side


@functools.cache
def _host_values() -> dict[str, int]:
    result = run([build_host("sdk_host_headers.c"), build_dpu("sdk_stdlib_attributes.c")])
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "OK"
    return parse_codes(result.stdout)


HOST = {
    "reset_rank": DPU_ERR_INTERNAL,
    "reset_dpu": DPU_ERR_INTERNAL,
    "custom_rank": 0,
    "custom_dpu": 0,
    "custom_null": DPU_ERR_INTERNAL,
    "custom_unknown": DPU_ERR_INTERNAL,
    "fill_context": 0,
    "context_threads": 24,
    "context_registers": 24,
    "context_atomic_bits": 256,
    "context_mram": 64 << 20,
    "context_wram_words": 64 * 1024 // 4,
    "context_zeroed": 1,
    "extract_pcs": DPU_ERR_INTERNAL,
    "extract_context": DPU_ERR_INTERNAL,
    "restore_context": DPU_ERR_INTERNAL,
    "init_fault": DPU_ERR_INTERNAL,
    "finalize_fault": DPU_ERR_INTERNAL,
    "step": DPU_ERR_INTERNAL,
    "slice_info": DPU_ERR_INTERNAL,
    "restore_mux": DPU_ERR_INTERNAL,
    "save_rank": DPU_ERR_INTERNAL,
    "restore_rank": DPU_ERR_INTERNAL,
    "core_dump": DPU_ERR_INTERNAL,
    "context_freed": 1,
    "pop": 0,
    "pop_null": 1,
    "loader_dpu": 1,
    "loader_rank": 1,
    "elf_load": DPU_ERR_ELF_INVALID_FILE,
    "profiling_type": 0,  # DPU_PROFILING_NOP
    "profiling_null": 1,
    "fill_profiling": 0,
    "patch_profiling": 0,
    "magic_profiling": 0,
}


@pytest.mark.parametrize("name", sorted(HOST))
def test_host_debug_loader_profiler_config_custom(name: str) -> None:
    assert _host_values()[name] == HOST[name]


def test_unsupported_host_calls_say_so_on_stderr() -> None:
    result = subprocess.run(
        [str(build_host("sdk_host_headers.c")), str(build_dpu("sdk_stdlib_attributes.c"))],
        env=toolchain_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "dpu_extract_pcs_for_dpu is not supported" in result.stderr
    assert "dpu_reset_dpu is not supported: reload the DPU's program with dpu_load" in result.stderr
    assert "dpu_elf_load is not supported" in result.stderr


@pytest.mark.skipif(cxx_compiler() is None, reason="no C++ compiler (g++ or c++) on PATH")
def test_cxx_programs_that_include_dpu_build_and_run(tmp_path: Path) -> None:
    binary = tmp_path / "cxx_header"
    compiled = build_cxx_host("sdk_cxx_header.cpp", binary)
    assert compiled.returncode == 0, compiled.stderr
    result = run([binary, build_dpu("sdk_stdio_attributes.c")])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "seen=75,75" in result.stdout
    assert "error_caught=undefined symbol" in result.stdout
    assert result.stdout.splitlines()[-1] == "OK"


@pytest.mark.skipif(cxx_compiler() is None, reason="no C++ compiler (g++ or c++) on PATH")
def test_dpu_headers_work_in_a_cxx_dpu_program(tmp_path: Path) -> None:
    binary = tmp_path / "sdk_headers_cxx"
    compiled = subprocess.run(
        [
            str(emulator().upmem_home / "bin" / "clang++"),
            "-std=c++17",
            "-O2",
            *STRICT,
            "-DNR_TASKLETS=1",
            "-o",
            str(binary),
            str(PROGRAMS / "sdk_headers_cxx.cpp"),
        ],
        env=toolchain_env(),
        capture_output=True,
        text=True,
    )
    assert compiled.returncode == 0, compiled.stderr
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(binary)
        dpus.launch()
        logs = dpus.logs()
    assert logs == ["profiling_init=1 buddy=64 fsb=1 fifo=1,3\n"], logs
