"""DPU programs see a DPU: its data model (32-bit pointers and size_t, 64-bit long), its C
library only, its memory limits and its stacks (issue 16)."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from emu_support import toolchain_module

import pyupmem as pim
from pyupmem import emu

SIZES = """
#include <stdint.h>
#include <stddef.h>
#include <defs.h>
struct mixed { char c; long l; void *p; };
struct wide { char c; long long ll; double d; };
struct extended { char c; long double ld; };
__host uint32_t sizes[11];
int main(void)
{
    if (me() == 0) {
        sizes[0] = sizeof(long);
        sizes[1] = sizeof(void *);
        sizes[2] = sizeof(size_t);
        sizes[3] = sizeof(struct mixed);
        sizes[4] = sizeof(long long);
        sizes[5] = sizeof(struct wide);
        sizes[6] = _Alignof(long long);
        sizes[7] = (uint32_t)(-1L > 0 ? 1 : 0) + (uint32_t)(sizeof(uintptr_t) * 10);
        sizes[8] = sizeof(long double);
        sizes[9] = sizeof(struct extended);
        sizes[10] = _Alignof(max_align_t);
    }
    return 0;
}
"""


def run_once(source: str, symbol: str, count: int, dtype=np.uint32, **build):
    program = pim.build_program(source, **build)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.launch()
        return dpus.gather(symbol, dtype, count)[0], dpus[0].log()


def test_pointers_and_size_t_are_4_bytes_long_is_8_and_structs_are_laid_out_as_on_a_dpu():
    sizes, _ = run_once(SIZES, "sizes", 11, nr_tasklets=1)
    # UPMEM's clang for the DPU: 32-bit pointers and size_t, LongWidth = LongAlign = 64.
    # long 8, void * and size_t 4; {char; long; void *}: 24 (the pointer at 16, then padding
    # to long's alignment; x32's own long would make it 12); long long 8; {char; long long;
    # double}: 24; -1L is negative; long double is a double (LongDoubleWidth 64), so {char;
    # long double} is 16 (x32: 32) and max_align_t is 8-aligned.
    assert list(sizes) == [8, 4, 4, 24, 8, 24, 8, 40, 8, 16, 8]


def test_long_is_64_bits_in_arithmetic_constants_builtins_macros_and_the_c_library():
    source = """
    #include <limits.h>
    #include <stdint.h>
    #include <stdio.h>
    #include <stdlib.h>
    __host uint64_t values[8];
    int main(void)
    {
        unsigned long one = 1;
        const char *format = "%ld|%lx\\n";  /* not a literal at the call: read as 64 bits */
        values[0] = one << 40;
        values[1] = 1L << 40;
        values[2] = (uint64_t)LONG_MAX;
        values[3] = __SIZEOF_LONG__ * 100 + __builtin_popcountl(~0UL);
        values[4] = (uint64_t)atol("-5000000000");
        values[5] = (uint64_t)labs(-5000000000L);
        values[6] = (uint64_t)ldiv(5000000000L, 2).quot;
        printf("%ld|%lu|%5lx|%%ld\\n", -5000000000L, ULONG_MAX, 0xabcdef012L);
        printf(format, 1L << 33, ULONG_MAX);
        return 0;
    }
    """
    program = pim.build_program(source, nr_tasklets=1, extra_args=["-Wall", "-Wextra", "-Werror"])
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.launch()
        values = dpus.gather("values", np.uint64, 8)[0]
        lines = dpus[0].log().splitlines()
    assert list(values[:7]) == [
        1 << 40, 1 << 40, (1 << 63) - 1, 864, (1 << 64) - 5_000_000_000, 5_000_000_000,
        2_500_000_000,
    ]
    assert lines[-2:] == [
        "-5000000000|18446744073709551615|abcdef012|%ld",
        "8589934592|ffffffffffffffff",
    ]


def test_a_cxx_dpu_program_has_the_same_data_model(tmp_path):
    source = tmp_path / "sizes.cpp"
    source.write_text(
        "#include <stdint.h>\n#include <defs.h>\n__host uint32_t sizes[3];\n"
        "template <typename T> constexpr unsigned size_of() { return sizeof(T); }\n"
        "int main() { sizes[0] = size_of<long>(); sizes[1] = alignof(unsigned long);"
        " sizes[2] = sizeof(void *); return 0; }\n"
    )
    sizes, _ = run_once(source, "sizes", 3, nr_tasklets=1)
    assert list(sizes) == [8, 8, 4]


def test_the_64_bit_long_rewrite_touches_only_lone_longs_l_suffixes_and_printf_formats():
    """The compiler proper's rewrite (toolchain/dpu_source.py) of a source whose
    directives were handled: a lone `long` becomes a macro for `long long` of its length."""
    model = toolchain_module("dpu_source")
    source = (
        '# 1 "long.c"\n'
        "#define ULONG unsigned long\n"
        "#  define BIT(n) (1UL << (n))\n"
        "long a; unsigned long b = 1UL; long long c = 2LL; long double d = 1.0L;\n"
        "static const long int e = 0x10l; unsigned\nlong f = 3lu + 07L + 1.5e3L;\n"
        'int g(void) { printf("%ld %5.2lx %lld %%ld %lc", a, b, c, 0); puts("%ld");'
        " return (int)sizeof(long) + 'L'; }\n"
    )
    assert model.rewrite(source) == (
        '# 1 "long.c"\n'
        "#define _L64 long long\n"
        "#define ULONG unsigned _L64\n"
        "#  define BIT(n) (1ULL << (n))\n"
        "_L64 a; unsigned _L64 b = 1ULL; long long c = 2LL; long double d = 1.0L;\n"
        "static const _L64 int e = 0x10ll; unsigned\n_L64 f = 3llu + 07LL + 1.5e3L;\n"
        'int g(void) { printf("%lld %5.2llx %lld %%ld %lc", a, b, c, 0); puts("%ld");'
        " return (int)sizeof(_L64) + 'L'; }\n"
    )
    cxx = 'auto s = R"x(long %ld)x"; unsigned long operator""_k(unsigned long long v);\n'
    assert model.rewrite(cxx) == (
        "#define _L64 long long\n"
        'auto s = R"x(long %ld)x"; unsigned _L64 operator""_k(unsigned long long v);\n'
    )


def test_preprocessing_alone_expands_macros_and_predefines_the_dpus_sizes(tmp_path):
    source = tmp_path / "expand.c"
    source.write_text("#define TWICE(x) ((x) + (x))\nint main(void) { return TWICE(2); }\n")
    compiler = str(emu.build().bin_dir / "dpu-upmem-dpurte-clang")
    expanded = subprocess.run([compiler, "-E", str(source)], capture_output=True, text=True,
                              check=True).stdout
    assert "int dpu_main(void) { return ((2) + (2)); }" in expanded
    macros = subprocess.run([compiler, "-dM", "-E", str(source)], capture_output=True,
                            text=True, check=True).stdout.splitlines()
    assert "#define __SIZEOF_LONG__ 8" in macros and "#define __SIZEOF_POINTER__ 4" in macros


@pytest.mark.parametrize("pragma", ["#pragma unroll", "#pragma clang loop unroll(full)"])
def test_clangs_unroll_pragmas_unroll_without_a_warning(pragma):
    """PrIM's kernels use clang's pragmas: gcc gets its own, so -Wall stays quiet and the
    loop is unrolled, as on a DPU (fewer counted instructions: no loop test per round)."""
    source = """
    #include <stdint.h>
    #include <defs.h>
    __host uint32_t data[16];
    __host uint32_t sum;
    int main(void)
    {
        uint32_t total = 0;
        PRAGMA
        for (int i = 0; i < 16; i++)
            total += data[i] * (uint32_t)i;
        sum = total;
        return 0;
    }
    """
    instructions = {}
    for variant in (pragma, "#pragma nounroll"):
        program = pim.build_program(source.replace("PRAGMA", variant), nr_tasklets=1,
                                    extra_args=["-Wall", "-Werror"], cache=False)
        with pim.DpuSet(1, backend="emulator") as dpus:
            dpus.load(program)
            dpus.broadcast("data", np.arange(16, dtype=np.uint32))
            dpus.launch()
            assert dpus.gather("sum", np.uint32, 1)[0, 0] == sum(i * i for i in range(16))
            instructions[variant] = int(dpus.estimate().instructions[0, 0])
    assert instructions[pragma] < instructions["#pragma nounroll"] - 16, instructions


def test_a_compiler_message_points_at_the_column_of_the_source():
    """The rewrite keeps columns: after `long` and a macro on the line, the caret is right."""
    source = "#define main_type long\nmain_type f(long x) { return x + undeclared_name; }\n"
    with pytest.raises(pim.CompileError) as error:
        pim.build_program(source, nr_tasklets=1, cache=False)
    assert re.search(r":2:34: error: .undeclared_name. undeclared", str(error.value)), error.value


def test_a_host_struct_laid_out_as_on_hardware_reads_back_field_by_field():
    source = """
    #include <stdint.h>
    #include <defs.h>
    struct record { char tag; long value; void *next; };
    __host struct record records[2];
    __host uint32_t checks[2];
    int main(void)
    {
        if (me() == 0) {
            checks[0] = records[1].tag == 'b' && records[1].value == -7;
            checks[1] = (uint32_t)(uintptr_t)records[1].next;
        }
        return 0;
    }
    """
    layout = np.dtype([("tag", "i1"), ("value", "<i8"), ("next", "<u4")], align=True)
    assert layout.itemsize == 24
    records = np.zeros(2, layout)
    records[1] = (ord("b"), -7, 0x1234)
    program = pim.build_program(source, nr_tasklets=1)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        # pyupmem reads the layout from the program's debug information: the DPU's.
        assert dpus.symbol("records").dtype.itemsize == 24
        dpus.broadcast("records", records)
        dpus.launch()
        assert list(dpus.gather("checks", np.uint32, 2)[0]) == [1, 0x1234]


def test_printf_formats_with_the_dpus_types():
    source = """
    #include <stdio.h>
    #include <stdint.h>
    #include <inttypes.h>
    int main(void)
    {
        long big = 3000000000L;  /* fits the DPU's 64-bit long */
        unsigned long long wide = 1ull << 40;
        printf("%ld %lu %llu %" PRIu64 " %zu %p %s|%5.2f|%-4d|%c|%x|%*d\\n", big,
               (unsigned long)-1, wide, (uint64_t)wide, sizeof(long), (void *)0x80,
               "text", 3.14159, 7, 'z', 255u, 6, 42);
        printf("%d %d %d %d %d %d %d %d %.1f %.1f\\n", 1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5);
        printf("%*d|%.*d|%.*s|%-*.*f|\\n", -4, 7, -1, 5, 2, "abc", 6, 2, 1.0);
        long double third = 1.0L / 3;
        printf("%.6Lf %Lg\\n", third, third * 3);
        return 0;
    }
    """
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(pim.build_program(source, nr_tasklets=1))
        dpus.launch()
        lines = dpus[0].log().splitlines()
    assert lines[-4] == (
        "3000000000 18446744073709551615 1099511627776 1099511627776 8 0x80 text| 3.14|7   |z|ff|"
        "    42"
    )
    assert lines[-3] == "1 2 3 4 5 6 7 8 0.5 1.5"
    # '*' widths and precisions: negative width is the '-' flag, negative precision none
    assert lines[-2] == "7   |5|ab|1.00  |"
    assert lines[-1] == "0.333333 1"


def test_printf_without_stdio_h_reaches_the_log():
    source = """
    int main(void)
    {
        printf("no header %d\\n", 5);
        return 0;
    }
    """
    # gcc knows printf as a builtin and says which header declares it, as DPU clang does.
    with pytest.warns(pim.CompileWarning, match="include .<stdio.h>"):
        program = pim.build_program(
            source, nr_tasklets=1, cache=False, extra_args=["-Wno-implicit-function-declaration"]
        )
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.launch()
        assert dpus[0].log().splitlines()[-1] == "no header 5"


def test_the_host_c_library_is_not_linked_and_the_error_names_the_function():
    source = """
    #include <stddef.h>
    void *fopen(const char *path, const char *mode);
    int main(void)
    {
        return fopen("x", "r") == NULL;
    }
    """
    with pytest.raises(pim.CompileError) as caught:
        pim.build_program(source, nr_tasklets=1, cache=False)
    message = str(caught.value)
    assert "undefined reference to `fopen'" in message
    assert "DPU's C library" in message


def test_the_dpu_c_library_works():
    source = """
    #include <stdint.h>
    #include <stdlib.h>
    #include <string.h>
    #include <ctype.h>
    __host int32_t results[8];
    int main(void)
    {
        char text[32] = "a,bb,,ccc";
        char *save = NULL, *token = strtok_r(text, ",", &save);
        int tokens = 0;
        while (token != NULL) {
            tokens++;
            token = strtok_r(NULL, ",", &save);
        }
        char word[8] = "Hello";
        results[0] = tokens;
        results[1] = atoi("  -1234x");
        results[2] = (int32_t)atol("2147483647");
        results[3] = abs(-9) + labs(-1L);
        results[4] = (int32_t)strlen(strrev(word)) * 100 + (word[0] == 'o');
        results[5] = strcmp(strupr(word), "OLLEH") == 0 && isdigit('7') && !isalpha('1');
        results[6] = div(17, 5).rem;
        results[7] = getenv("HOME") == NULL;
        return 0;
    }
    """
    results, _ = run_once(source, "results", 8, np.int32, nr_tasklets=1)
    assert list(results) == [3, -1234, 2147483647, 10, 501, 1, 2, 1]


def test_stdio_and_stdlib_bring_the_dpu_attributes():
    for header in ("stdio.h", "stdlib.h"):
        source = f"""
        #include <{header}>
        __host int a;
        __mram int b;
        __mram_noinit int c[2];
        __dma_aligned char d[8];
        int main(void) {{ return a + d[0]; }}
        """
        pim.build_program(source, nr_tasklets=1)


def test_a_program_over_the_dpus_wram_fails_to_build_naming_the_sizes():
    source = """
    #include <stdint.h>
    #include <defs.h>
    __host uint8_t big[100000];
    int main(void) { return big[me()]; }
    """
    with pytest.raises(pim.CompileError) as caught:
        pim.build_program(source, nr_tasklets=1, cache=False)
    message = str(caught.value)
    assert "WRAM overflowed by" in message and ".bss 100,000" in message
    assert "__mram_noinit" in message  # the fix


PATH_FREE = """
#include <assert.h>
#include <alloc.h>
#include <defs.h>
#include <mram.h>
#include <seqread.h>
#include <stdint.h>
__mram_noinit uint64_t table[64];
__dma_aligned uint64_t buffer[8];
__host uint32_t total;
int main(void)
{
    seqreader_t reader;
    uint32_t *item = seqread_init(seqread_alloc(), table, &reader);
    mram_read(table, buffer, sizeof(buffer));
    assert(buffer[0] == 0);
    total = *item + (uint32_t)(uintptr_t)mem_alloc(8);
    return 0;
}
"""


def test_wram_addresses_do_not_depend_on_where_the_source_lies(tmp_path):
    # The emulator's messages name the source file; its path must take no WRAM, which on a
    # DPU holds no such string, or every variable would move with the checkout's folder.
    addresses = []
    for folder in ("a", "a_folder_with_a_much_longer_name_than_the_other_one"):
        source = tmp_path / folder / "kernel.c"
        source.parent.mkdir()
        source.write_text(PATH_FREE)
        with pim.DpuSet(1, backend="emulator") as dpus:
            loaded = dpus.load(pim.build_program(source, nr_tasklets=1))
            addresses.append((loaded["buffer"].address, loaded["total"].address))
            dpus.launch()  # and the program still runs
            assert dpus.gather("total", np.uint32, 1)[0] != 0
    assert addresses[0] == addresses[1]


def test_strerror_has_a_message_for_every_code_of_errno_h():
    codes = re.findall(
        r"#define (E[A-Z0-9]+) ", (emu.SOURCE_DIR / "include" / "dpu" / "errno.h").read_text()
    )
    assert len(codes) > 10, codes
    source = (
        "#include <errno.h>\n#include <stdint.h>\n#include <string.h>\n#include <defs.h>\n"
        f"__host uint32_t unknown[{len(codes)}];\n"
        "int main(void) {\n"
        + "".join(
            f'    unknown[{i}] = strcmp(strerror({code}), "Unknown error") == 0;\n'
            for i, code in enumerate(codes)
        )
        + "    return 0;\n}\n"
    )
    unknown, _ = run_once(source, "unknown", len(codes), nr_tasklets=1)
    assert [code for code, flag in zip(codes, unknown, strict=True) if flag] == []


def test_the_c_librarys_messages_take_wram_only_in_a_program_that_calls_strerror():
    source = """
    #include <defs.h>
    #include <stdint.h>
    #include <string.h>
    __host uint32_t length;
    int main(void) { length = CALL; return 0; }
    """
    addresses = {}
    for call in ("0", "(uint32_t)strlen(strerror(me() + 1))"):
        with pim.DpuSet(1, backend="emulator") as dpus:
            loaded = dpus.load(pim.build_program(source, nr_tasklets=1, defines={"CALL": call}))
            addresses[call] = loaded["length"].address
            dpus.launch()
            if call != "0":  # strerror(1): EPERM's message
                assert dpus.gather("length", np.uint32, 1)[0] == len("Operation not permitted")
    assert addresses["0"] < addresses["(uint32_t)strlen(strerror(me() + 1))"] - 100


def test_stacks_count_in_wram_at_build_time():
    source = """
    #include <stdint.h>
    #include <defs.h>
    __host uint8_t table[40000];
    int main(void) { return table[me()]; }
    """
    pim.build_program(source, nr_tasklets=16)  # 40,000 + 16 x 1,024: fits
    with pytest.raises(pim.CompileError, match="stacks 16 x 2,048"):
        pim.build_program(source, nr_tasklets=16, defines={"STACK_SIZE_DEFAULT": 2048}, cache=False)


def test_chip_v1b_has_less_wram():
    source = """
    #include <stdint.h>
    #include <defs.h>
    __host uint8_t table[64000];
    int main(void) { return table[me()]; }
    """
    pim.build_program(source, nr_tasklets=1, defines={"STACK_SIZE_DEFAULT": 256})
    with pytest.raises(pim.CompileError, match="v1B DPU has 63,488"):
        pim.build_program(
            source,
            nr_tasklets=1,
            defines={"STACK_SIZE_DEFAULT": 256},
            extra_args=["-mcpu=v1B"],
            cache=False,
        )


def test_a_program_built_for_v1a_that_needs_more_wram_than_v1b_has_is_refused_at_load(capfd):
    """The build checks the chip it was built for; a set whose profile says v1B refuses a
    v1A build that does not fit its 63,488 bytes, naming the sizes and the fix."""
    source = """
    #include <stdint.h>
    #include <defs.h>
    __host uint8_t table[%d];
    int main(void) { return table[me()]; }
    """
    too_big = pim.build_program(source % 64000, nr_tasklets=1, defines={"STACK_SIZE_DEFAULT": 256})
    fits = pim.build_program(source % 62000, nr_tasklets=1, defines={"STACK_SIZE_DEFAULT": 256})
    with pim.DpuSet(1, backend="emulator", profile="chipVersion=v1B") as dpus:
        with pytest.raises(pim.DpuProgramError, match="ELF_INVALID_FILE"):
            dpus.load(too_big)
        message = capfd.readouterr().err
        assert re.search(r"needs 6[45]\d\d\d bytes of WRAM \(6[45]\d\d\d of data and "
                         r"variables, 256 of stacks\) and a v1B DPU \(the profile's "
                         r"chipVersion\) has 63488", message), message
        assert "-mcpu=v1B" in message, message
        dpus.load(fits)  # the set stays usable, and a program that fits loads
        dpus.launch()
    with pim.DpuSet(1, backend="emulator") as dpus:  # v1A: 65,536 bytes
        dpus.load(too_big)


def test_a_program_over_the_dpus_mram_fails_to_build():
    source = """
    #include <stdint.h>
    #include <mram.h>
    __mram_noinit uint8_t huge[80 << 20];
    int main(void) { return 0; }
    """
    with pytest.raises(pim.CompileError, match="MRAM overflowed by 16,777,216 bytes"):
        pim.build_program(source, nr_tasklets=1, cache=False)


STACKS = """
#include <stdint.h>
#include <defs.h>
__host uint32_t depth;
__host int32_t unused[4];
__attribute__((noinline)) uint32_t recurse(volatile uint8_t *previous, uint32_t n)
{
    volatile uint8_t frame[64];
    frame[0] = (uint8_t)n;
    frame[63] = previous ? previous[0] : 0;
    return n == 0 ? frame[63] : recurse(frame, n - 1) + frame[0];
}
int main(void)
{
    uint32_t result = recurse(0, depth);
    unused[me()] = check_stack();
    return (int)(result & 1);
}
"""


def test_check_stack_tells_the_stack_never_used_and_grows_with_the_stack_size():
    program = pim.build_program(
        STACKS, nr_tasklets=3, defines={"STACK_SIZE_DEFAULT": 1024, "STACK_SIZE_TASKLET_1": 2048}
    )
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.broadcast("depth", np.uint32(2))
        dpus.launch()
        shallow = dpus.gather("unused", np.int32, 4)[0]
        dpus.broadcast("depth", np.uint32(8))
        dpus.launch()
        deep = dpus.gather("unused", np.int32, 4)[0]
    assert 0 < shallow[0] < 1024 and shallow[0] == shallow[2]
    assert shallow[1] == shallow[0] + 1024  # the same code on a stack 1,024 bytes larger
    assert deep[0] < shallow[0] - 6 * 64  # six more frames of at least 64 bytes each


def test_a_stack_overflow_faults_naming_the_tasklet_its_stack_and_the_fix():
    program = pim.build_program(STACKS, nr_tasklets=2, defines={"STACK_SIZE_TASKLET_1": 4096})
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.broadcast("depth", np.uint32(400))  # about 25 KiB of frames
        with pytest.raises(pim.DpuFaultError) as caught:
            dpus.launch()
        message = str(caught.value)
        assert "stack overflow" in message and "in recurse()" in message
        assert "tasklet 0 used more than its 1024-byte stack" in message
        assert "STACK_SIZE_TASKLET_0" in message
        dpus.load(program)  # usable again
        dpus.broadcast("depth", np.uint32(4))
        dpus.launch()


def test_a_large_local_array_overflows_a_small_stack():
    source = """
    #include <stdint.h>
    #include <string.h>
    #include <defs.h>
    __host uint32_t out;
    int main(void)
    {
        volatile uint8_t local[8192];
        memset((void *)local, me(), sizeof(local));
        out = local[100];
        return 0;
    }
    """
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(pim.build_program(source, nr_tasklets=1))
        with pytest.raises(pim.DpuFaultError, match="stack overflow"):
            dpus.launch()
        dpus.load(pim.build_program(source, nr_tasklets=1, defines={"STACK_SIZE_DEFAULT": 9216}))
        dpus.launch()


PLAIN_MRAM = """
#include <stdint.h>
#include <defs.h>
#include <mram.h>
__mram_noinit uint64_t results[4];       /* MRAM, from 0x08000000 */
__host uint64_t wram_values[4];
__host uint32_t offset;                  /* the DPU WRAM address of wram_values[1] */
__host uint64_t through_mram_ptr, through_plain_pointer;
int main(void)
{
    results[1] = 1111;                   /* an __mram variable: reaches MRAM (DMA on a DPU) */
    __mram_ptr uint64_t *in_mram = &results[1];
    through_mram_ptr = *in_mram;
    /* A cast to an ordinary pointer loses the address space (PIM-Opt's mistake). */
    uint64_t *plain = (uint64_t *)(uintptr_t)((uint32_t)(uintptr_t)&results[0] + offset);
    through_plain_pointer = *plain;       /* on a DPU: WRAM at the address's low 16 bits */
    *plain = 2222;
    return 0;
}
"""


def _plain_mram_program():
    return pim.build_program(PLAIN_MRAM, nr_tasklets=1)


def test_mram_is_a_second_address_space_and_a_plain_pointer_reaches_wram_as_on_a_dpu(capfd):
    program = _plain_mram_program()
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        assert dpus.symbol("results").address == 0x08000000
        target = dpus.symbol("wram_values").address + 8
        dpus.broadcast("offset", np.uint32(target))
        dpus.broadcast("wram_values", np.array([7, 8, 9, 10], np.uint64))
        dpus.launch()
        assert dpus.gather("through_mram_ptr", np.uint64, 1)[0, 0] == 1111
        assert dpus.gather("through_plain_pointer", np.uint64, 1)[0, 0] == 8
        assert list(dpus.gather("wram_values", np.uint64, 4)[0]) == [7, 2222, 9, 10]
        assert dpus.gather("results", np.uint64, 4)[0, 1] == 1111  # MRAM untouched
    warning = capfd.readouterr().err
    assert (
        f"an ordinary load or store at the MRAM address {0x08000000 + target:#x} reaches WRAM "
        f"at {target:#06x}" in warning
    )
    assert "source0.c:16" in warning  # the line


def test_a_plain_access_to_mram_in_a_loop_warns_once_without_debug_information(capfd):
    # Without debug information the line is unknown ("?"); the second access from the same
    # instruction must find the same answer in the runtime's cache of locations, and so
    # not warn again under another name.
    source = """
    #include <stdint.h>
    #include <defs.h>
    __mram_noinit uint64_t results[4];
    __host uint64_t wram_values[4];
    __host uint32_t offset;
    __host uint64_t total;
    __host uint32_t rounds;
    int main(void)
    {
        uint64_t sum = 0;
        for (uint32_t round = 0; round < rounds; round++) { /* one instruction, 3 times */
            volatile uint64_t *plain =
                (uint64_t *)(uintptr_t)((uint32_t)(uintptr_t)&results[0] + offset);
            sum += *plain;
        }
        total = sum;
        return 0;
    }
    """
    program = pim.build_program(source, nr_tasklets=1, debug=False)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        target = dpus.symbol("wram_values").address + 8
        dpus.broadcast("offset", np.array([target], np.uint32))
        dpus.broadcast("wram_values", np.array([7, 8, 9, 10], np.uint64))
        dpus.broadcast("rounds", np.array([3], np.uint32))
        capfd.readouterr()
        dpus.launch()
        assert dpus.gather("total", np.uint64, 1)[0, 0] == 3 * 8
    warnings = [line for line in capfd.readouterr().err.splitlines()
                if "an ordinary load or store at the MRAM address" in line]
    assert len(warnings) == 1, warnings
    # no line table: the function from the symbol table, no file (addr2line would name the
    # C library's object)
    assert "(tasklet 0, in main(); build with -g for its line)" in warnings[0], warnings


def test_an_mram_pointer_past_mram_faults_naming_its_mram_address():
    source = """
    #include <stdint.h>
    #include <mram.h>
    __mram_noinit uint32_t area[16];
    __host uint32_t seen;
    int main(void)
    {
        __mram_ptr uint32_t *past = (__mram_ptr uint32_t *)((uintptr_t)area + (64u << 20));
        seen = *past;
        return 0;
    }
    """
    program = pim.build_program(source, nr_tasklets=1)
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        address = dpus.symbol("area").address + (64 << 20)
        with pytest.raises(pim.DpuFaultError, match=f"__mram_ptr access at {address:#010x}"):
            dpus.launch()


def test_a_plain_access_to_mram_faults_in_strict_mode():
    program = _plain_mram_program()
    with pim.DpuSet(1, backend="emulator", strict=True) as dpus:
        dpus.load(program)
        dpus.broadcast("offset", np.uint32(dpus.symbol("wram_values").address))
        with pytest.raises(pim.DpuFaultError, match="only DMA .* reaches MRAM"):
            dpus.launch()


def test_strict_iso_c_keeps_mram_in_the_ordinary_address_space():
    """Named address spaces are a GNU C extension: with -std=c11, __mram variables are
    ordinary variables at their MRAM addresses, which the worker then maps."""
    source = """
    #include <stdint.h>
    #include <mram.h>
    __mram_noinit uint64_t cell[1];
    __host uint64_t seen;
    int main(void)
    {
        cell[0] = 4242;
        seen = cell[0] + 1;
        return 0;
    }
    """
    program = pim.build_program(source, nr_tasklets=1, extra_args=["-std=c11"])
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.launch()
        assert dpus.gather("seen", np.uint64, 1)[0, 0] == 4243
        assert dpus.gather("cell", np.uint64, 1)[0, 0] == 4242
