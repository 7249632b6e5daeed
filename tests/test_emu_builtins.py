"""The emulator's built_ins.h: the DPU's arithmetic and bit intrinsics give the 32-bit
DPU's results (checked against Python arithmetic on edge and random operands), the
intrinsics with no meaning on the emulator stop the compilation naming themselves, the
header compiles cleanly, and it is what its generator produces."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from emu_support import PROGRAMS, toolchain_env

from pyupmem import emu

M = 0xFFFFFFFF
GENERATOR = emu.SOURCE_DIR / "tools" / "gen_built_ins.py"
INCLUDE = emu.SOURCE_DIR / "include" / "dpu"
NR_RESULTS = 96


def s32(x: int) -> int:
    x &= M
    return x - (1 << 32) if x & 0x80000000 else x


def byte(x: int, part: str) -> int:
    value = (x >> 8 if part[1] == "h" else x) & 0xFF
    return value - 256 if part[0] == "s" and value & 0x80 else value


def clz(x: int) -> int:
    return 32 - (x & M).bit_length()


def rol(x: int, n: int) -> int:
    n &= 31
    return ((x << n) | (x >> (32 - n))) & M if n else x


def asr(x: int, n: int) -> int:
    return (s32(x) >> (n & 31)) & M


def ext(x: int, bits: int, signed: bool) -> int:
    x &= (1 << bits) - 1
    if signed and x >> (bits - 1):
        x -= 1 << bits
    return x & M


def lo_hi(x: int) -> list[int]:
    x &= (1 << 64) - 1
    return [x & M, x >> 32]


def expected(a: int, b: int) -> list[int]:
    sh = b & 31
    out: list[int] = []
    for x in ("sl", "sh", "ul", "uh"):
        for y in ("sl", "sh", "ul", "uh"):
            if x[0] == "u" and y[0] == "s":
                continue
            out.append((byte(a, x) * byte(b, y)) & M)
    cls = clz(~a & M) if a & 0x80000000 else clz(a)
    out += [clz(a), clz(~a & M), cls, bin(a).count("1")]
    out += [ext(a, 8, True), ext(a, 16, True), a & 0xFF, a & 0xFFFF]
    cmpb4 = sum(1 << i for i in range(0, 32, 8) if (a >> i) & 0xFF == (b >> i) & 0xFF)
    out += [
        (a + b) & M,
        (a - b) & M,
        (b - a) & M,
        a & b,
        ~a & b & M,
        a | b,
        (~a | b) & M,
        a ^ b,
        ~(a & b) & M,
        ~(a | b) & M,
        ~(a ^ b) & M,
        asr(a, b),
        (a << sh) & M,
        a >> sh,
        ((a << sh) | ((1 << sh) - 1)) & M,
        (a >> sh) | (~(M >> sh) & M),
        a >> (32 - sh) if sh else 0,
        (a << (32 - sh)) & M if sh else 0,
        rol(a, b),
        rol(a, 32 - sh),
        cmpb4,
    ]
    # Carry chains: 64-bit (b:a) + (a:b) and (b:a) - (a:b); b:a - a:b reversed (rsub).
    out += lo_hi((b << 32 | a) + (a << 32 | b))
    out += lo_hi((b << 32 | a) - (a << 32 | b))
    out += lo_hi((a << 32 | b) - (b << 32 | a))
    out.append((a + 5 + ((a + b) >> 32)) & M)
    out.append((100 - b - (1 if b > a else 0)) & M)
    out += [
        (a << 3) & M,
        a >> 31,
        asr(a, 7),
        rol(a, 4),
        (a - 7) & M,
        (0x10 - a) & M,
        a ^ 0xFF,
        a,
        (a << 24) & M,
    ]
    out += [
        (a + (b << 4)) & M,
        (a - (b << 2)) & M,
        (a + (b >> 5)) & M,
        (a + rol(b, 13)) & M,
    ]
    out += lo_hi(s32(a + b))
    out += lo_hi((a + b) & M)
    out += lo_hi(byte(a, "sh") * byte(b, "sh"))
    out += lo_hi(s32(ext(a, 8, True)))
    out += lo_hi(clz(a))
    out += lo_hi(s32(a + (b << 1)))
    out += lo_hi(asr(a, 1))
    out += [a, M, (-a) & M, ~a & M]
    return out


EDGES = [0, 1, 2, 5, 7, 31, 32, 33, 0x7F, 0x80, 0xFF, 0x100, 0x17F, 0x7FFF, 0x8000, 0xFFFF,
         0x8080, 0xFF80, 0x12345678, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFF7F,
         0xFFFFFFFE, 0xFFFFFFFF]  # fmt: skip


def operands() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(8)
    a = [x for x in EDGES for _ in EDGES]
    b = [y for _ in EDGES for y in EDGES]
    n_random = 1024 - len(a)
    a += [int(x) for x in rng.integers(0, 2**32, n_random, dtype=np.uint64)]
    # Random b: half small (shift amounts), half any 32-bit value.
    b += [int(x) for x in rng.integers(0, 64, n_random // 2, dtype=np.uint64)]
    b += [int(x) for x in rng.integers(0, 2**32, n_random - n_random // 2, dtype=np.uint64)]
    return np.array(a, np.uint32), np.array(b, np.uint32)


def test_intrinsics_give_the_dpus_results():
    import pyupmem as pim

    program = pim.build_program(PROGRAMS / "builtins.c", nr_tasklets=1)
    a, b = operands()
    n = len(a)
    with pim.DpuSet(1) as dpus:
        dpus.load(program)
        dpus.broadcast("nr_pairs", np.array([n], np.uint32))
        dpus.broadcast(pim.DPU_MRAM_HEAP_POINTER_NAME, np.concatenate([a, b]))
        dpus.launch()
        produced = int(dpus.gather("nr_results", np.uint32, 1)[0][0])
        out = dpus.gather(pim.DPU_MRAM_HEAP_POINTER_NAME, np.uint32, n * NR_RESULTS, 8 * n)
    results = out[0].reshape(n, NR_RESULTS)
    assert produced == len(expected(0, 0))
    failures = []
    for i in range(n):
        want = expected(int(a[i]), int(b[i]))
        got = [int(x) for x in results[i][: len(want)]]
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            if g != w:
                failures.append(f"a={int(a[i]):#x} b={int(b[i]):#x} result {k}: {g:#x} != {w:#x}")
    assert not failures, "\n".join(failures[:20]) + f"\n({len(failures)} in all)"


def _compile(source: str, tmp_path: Path, *flags: str, compiler: str | None = None):
    path = tmp_path / "program.c"
    path.write_text(source)
    command = (
        [compiler, "-std=c11", *flags, f"-I{INCLUDE}"]
        if compiler
        else ["dpu-upmem-dpurte-clang", *flags]
    )
    return subprocess.run(
        [*command, "-O2", "-c", str(path), "-o", str(tmp_path / "program.o")],
        env=toolchain_env(),
        capture_output=True,
        text=True,
    )


MEANINGLESS = [
    ("__builtin_stop_", "__builtin_stop_();"),
    ("__builtin_add_rrrc", '__builtin_add_rrrc(r, r, r, "z");'),
    ("__builtin_add_rrrci", '__builtin_add_rrrci(r, r, r, "nz", "label");'),
    ("__builtin_ldma_rri", '__builtin_ldma_rri(r, r, "7");'),
    ("__builtin_acquire_rici", '__builtin_acquire_rici(r, "0", "nz", "label");'),
    ("__builtin_mul_step_drdici", '__builtin_mul_step_drdici(d, r, d, "0", "z", "l");'),
    ("__builtin_time_r", "__builtin_time_r(r);"),
    ("__builtin_hash_rrr", "__builtin_hash_rrr(r, r, r);"),
    ("__builtin_clz_rrc", '__builtin_clz_rrc(r, r, "max");'),
]


@pytest.mark.parametrize(("name", "statement"), MEANINGLESS, ids=[m[0] for m in MEANINGLESS])
def test_meaningless_intrinsic_fails_to_compile_naming_itself(name, statement, tmp_path):
    source = (
        "#include <built_ins.h>\n#include <stdint.h>\n"
        "uint32_t f(uint32_t r);\n"
        f"uint32_t f(uint32_t r) {{ uint64_t d = 0; (void)d; {statement} return r; }}\n"
    )
    result = _compile(source, tmp_path)
    assert result.returncode != 0
    assert f"{name}: has no meaning on the pyupmem emulator" in result.stderr, result.stderr


def _compilers() -> list[str]:
    return [c for c in ("gcc", "clang") if shutil.which(c)]


@pytest.mark.parametrize("compiler", _compilers())
@pytest.mark.parametrize("std", ["c11", "gnu11"])
def test_header_and_every_provided_intrinsic_compile_without_warnings(compiler, std, tmp_path):
    """Every provided intrinsic, used once, as a non-system header: no warning."""
    header = (INCLUDE / "built_ins.h").read_text()
    uses = []
    for line in header.splitlines():
        if not line.startswith("#define __builtin_") or "__DPURT_NO_MEANING" in line:
            continue
        match = re.match(r"#define (\w+)\(([^)]*)\)", line)
        assert match, line
        name, params = match.groups()
        args = {"rc": "r", "dc": "d", "imm": '"3"'}
        call = ", ".join(args.get(p.strip(), "a") for p in params.split(",") if p.strip())
        uses.append(f"    {name}({call});")
    assert len(uses) > 250
    source = (
        "#include <built_ins.h>\n#include <stdint.h>\n"
        "int64_t f(uint32_t a);\n"
        "int64_t f(uint32_t a)\n{\n    uint32_t r = 0;\n    int64_t d = 0;\n"
        + "\n".join(uses)
        + "\n    return d + r;\n}\n"
    )
    path = tmp_path / "all.c"
    path.write_text(source)
    result = subprocess.run(
        [compiler, f"-std={std}", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
         "-c", str(path), "-o", str(tmp_path / "all.o")],
        capture_output=True,
        text=True,
    )  # fmt: skip
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_header_is_what_the_generator_produces():
    result = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_sdk_immediates_as_string_literals_and_integers(tmp_path):
    """The SDK passes immediates as string literals; integers work too."""
    uses = " ".join(
        f"__builtin_lsl_add_rrri(r, r, r, {imm});" for imm in ('"4"', '"0x4"', "4", "-1 + 5")
    )
    source = (
        "#include <built_ins.h>\n#include <stdint.h>\nuint32_t f(uint32_t r);\n"
        f"uint32_t f(uint32_t r) {{ {uses} return r; }}\n"
    )
    result = _compile(source, tmp_path, "-Wall", "-Wextra")
    assert result.returncode == 0 and result.stderr == "", result.stderr
