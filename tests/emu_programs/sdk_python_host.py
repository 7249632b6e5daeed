"""A host script written for the UPMEM SDK's Python module `dpu`, run unchanged on
pyupmem's emulator after `eval "$(python -m pyupmem env)"`. It prints `check ...` lines
and exits with 1 on the first wrong result."""

import io
import os
import struct
import subprocess
import sys
import tempfile

import dpu.compiler as dpu_compiler
import dpu.driver as dpu_driver
import dpu.ffi as dpu_ffi
from dpu import ALLOCATE_ALL, DpuError, DpuSet, DpuSymbol

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL = os.path.join(HERE, "sdk_python_kernel.c")
N = 64
NR_DPUS = 4


def check(name, condition):
    print(f"check {name}: {'ok' if condition else 'FAILED'}")
    if not condition:
        sys.exit(1)


def expect_error(name, action):
    try:
        action()
    except DpuError as error:
        print(f"check {name}: ok ({str(error).splitlines()[0][:70]})")
        return
    print(f"check {name}: FAILED (no DpuError)")
    sys.exit(1)


def expect_compile_error(name, action, says):
    """The SDK's compiler runs with check=True: a failed compile is a CalledProcessError."""
    try:
        action()
    except subprocess.CalledProcessError as error:
        check(f"{name} ({error.returncode})", error.returncode != 0 and says in error.stderr)
        return
    print(f"check {name}: FAILED (no CalledProcessError)")
    sys.exit(1)


def words(*values):
    return bytearray(struct.pack(f"<{len(values)}I", *values))


def main():
    with DpuSet(nr_dpus=NR_DPUS, c_source=KERNEL) as dpus:
        check("allocation", len(dpus) == NR_DPUS and len(dpus.dpus()) == NR_DPUS)
        check("ranks", len(dpus.ranks()) == 1 and len(dpus.ranks()[0]) == NR_DPUS)
        check("iteration", [len(dpu) for dpu in dpus] == [1] * NR_DPUS)

        program = dpus.load(c_source=KERNEL)  # load again: the same program, compiled once
        crash = program.get_symbol("crash")
        check("DpuProgram.get_symbol", isinstance(crash, DpuSymbol) and crash.size() == 4)
        check("unknown symbol is None", program.get_symbol("no_such_symbol") is None)

        # copy: one bytearray to every DPU, a list (one per DPU), and a symbol attribute.
        data = [words(*[(d + 1) * (i + 1) for i in range(N)]) for d in range(NR_DPUS)]
        dpus.copy("buffer", data)
        dpus.copy("factor", words(3))
        dpus.copy(crash, words(0))
        for index, dpu in enumerate(dpus.dpus()):
            dpu.dpu_index = words(index)
        dpus.scale = bytearray(struct.pack("<f", 1.25))
        dpus.negated = words(1, 2, 3, 0xFFFFFFFF)

        log = io.StringIO()
        dpus.exec(log=log)
        text = log.getvalue()
        check("exec writes every DPU's log", text.count("=== DPU#") == NR_DPUS)
        check("log content", "dpu 2: sum 18720" in text)

        expected = [3 * (d + 1) * N * (N + 1) // 2 for d in range(NR_DPUS)]
        check("symbol read, one value per DPU", dpus.result.uint64() == expected)
        check("symbol read on one DPU", dpus.dpus()[1].result.uint64() == expected[1])
        check("float", dpus.scale.float() == [2.5] * NR_DPUS)
        check("int32 arrays", list(dpus.dpus()[0].negated.int32()) == [-1, -2, -3, 1])
        check("raw bytes", bytes(dpus.dpus()[0].factor.data()) == bytes(words(3)))
        check("uint8 view", list(dpus.dpus()[0].factor.uint8()) == [3, 0, 0, 0])

        # copy from the DPUs: a list with a None, a size and an offset.
        results = [bytearray(8) if d != 1 else None for d in range(NR_DPUS)]
        dpus.copy(results, "result")
        check(
            "per-DPU copy from the DPUs",
            results[1] is None and results[3] == struct.pack("<Q", expected[3]),
        )
        parts = [bytearray(16) for _ in range(NR_DPUS)]
        dpus.copy(parts, "buffer", size=8, offset=8)
        check("size and offset", parts[2][:8] == words(3 * 3, 3 * 4) and parts[2][8:] == bytes(8))

        # copy to the DPUs with a None: that DPU keeps its value.
        dpus.copy("factor", [words(10), None, words(10), words(10)])
        dpus.exec()
        sums = dpus.result.uint64()
        check("per-DPU copy with None", sums[0] == 10 * expected[0] // 3 and sums[1] == expected[1])

        # logs to a list of streams and to a dict, and log() afterwards.
        streams = [io.StringIO() for _ in range(NR_DPUS)]
        dpus.exec(log=streams)
        check("log to a list", all(f"dpu {d}:" in s.getvalue() for d, s in enumerate(streams)))
        chosen = io.StringIO()
        dpus.exec(log={dpus.dpus()[3]: chosen})
        check(
            "log to a dict",
            chosen.getvalue().startswith("=== DPU#") and "dpu 3:" in chosen.getvalue(),
        )
        again = io.StringIO()
        dpus.dpus()[0].log(again)
        check("log()", "dpu 0:" in again.getvalue())

        # errors are DpuError.
        expect_error("unknown symbol", lambda: dpus.copy("no_such_symbol", words(1)))
        expect_error("two host sides", lambda: dpus.copy(bytearray(4), bytearray(4)))
        expect_error("MRAM size not a multiple of 8", lambda: dpus.copy("buffer", bytearray(12)))
        expect_error("wrong number of buffers", lambda: dpus.copy("factor", [words(1)] * 3))
        expect_error("buffer too small", lambda: dpus.copy("factor", words(1), size=8))
        dpus.dpus()[2].crash = words(1)
        expect_error("a DPU fault", lambda: dpus.exec())
        check("no attribute", not hasattr(dpus, "not_a_symbol"))

        # load C source text (a file object), and DPU-level loads.
        dpus.load(
            c_source=io.StringIO(
                "#include <defs.h>\n__host int answer;\nint main(void) { answer = 42; return 0; }"
            )
        )
        dpus.exec()
        check("c_source text", dpus.answer.int32() == [42] * NR_DPUS)
        check("old symbols are gone", not hasattr(dpus, "result"))
        dpus.dpus()[0].load(c_source=KERNEL)
        check(
            "a DPU's own program",
            hasattr(dpus.dpus()[0], "result")
            and not hasattr(dpus, "answer")
            and dpus.dpus()[1].answer.int32() == 42,
        )
    expect_error("nr_dpus and nr_ranks", lambda: DpuSet(nr_dpus=1, nr_ranks=1))
    expect_compile_error(
        "compile error",
        lambda: DpuSet(nr_dpus=1, c_source=io.StringIO("int main(void) { return x; }")),
        "undeclared",
    )
    expect_compile_error(
        "missing source file",
        lambda: DpuSet(nr_dpus=1, c_source="no_such_kernel.c"),
        "no_such_kernel.c",
    )
    check("submodules", dpu_driver.DpuSet is DpuSet and dpu_driver.DpuError is DpuError)
    check("ffi constants", dpu_ffi.DPU_ALLOCATE_ALL == ALLOCATE_ALL and dpu_ffi.DPU_OK == 0)
    with tempfile.TemporaryDirectory() as folder:
        # the SDK's way to build a binary: its compiler, then DpuSet(binary=...)
        binary = os.path.join(folder, "kernel.dpu")
        done = dpu_compiler.DEFAULT_DPU_COMPILER.compile(
            [KERNEL], output=binary, opt_lvl=dpu_compiler.O2
        )
        check("compiler", done.returncode == 0 and os.path.isfile(binary))
        with DpuSet(nr_dpus=2, binary=binary) as pair:
            names = pair.load(binary=binary).fetch_all_symbols()
            check("fetch_all_symbols", {"factor", "result", "buffer"} <= set(names))
            check("symbol sizes", names["result"].size() == 8 and names["buffer"].size() == 4 * N)
            pair.factor = words(2)
            pair.copy("buffer", [words(*[d + i for i in range(N)]) for d in range(2)])
            pair.copy("crash", words(0))
            pair.exec()
            sums = [2 * sum(d + i for i in range(N)) for d in range(2)]
            check("binary runs", pair.result.uint64() == sums)
    with DpuSet(nr_dpus=ALLOCATE_ALL, profile="nrRanks=2") as everything:
        check("ALLOCATE_ALL", len(everything) == 128 and len(everything.ranks()) == 2)
    with DpuSet(nr_ranks=1, profile="nrRanks=2") as rank:
        check("nr_ranks", len(rank) == 64)
    print("all checks passed")


if __name__ == "__main__":
    main()
