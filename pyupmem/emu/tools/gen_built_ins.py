"""Generates the emulator's DPU-side ``built_ins.h``.

The UPMEM SDK's ``built_ins.h`` declares the DPU's ISA intrinsics as macros over inline
assembly, named ``__builtin_<opcode>_<operand form>``. The emulator compiles DPU programs
with the host C compiler, so this generator writes the same names as portable C:

* every form whose meaning is a computation on 32-bit registers (``rrr``, ``rri``, ``rir``,
  ``rr``, ``rrri``, their ``z`` forms, which discard the result, and their ``s_``/``u_``
  forms, which write the result sign- or zero-extended to a 64-bit pair) becomes a
  macro over a static inline function with the DPU's semantics;
* every other form (a condition or a jump target, control flow, DMA, raw memory access,
  atomic bits, tasklet control, time registers, and the few instructions whose exact
  semantics are not public) becomes a macro that stops the compilation with a message
  naming the intrinsic.

Immediate operands are accepted as the SDK takes them, string literals (``"12"``,
``"-3"``, ``"0x1f"``), or as integer expressions.

Run ``python pyupmem/emu/tools/gen_built_ins.py`` to rewrite the header, or with
``--check`` to fail when the header is not what this script produces.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HEADER = Path(__file__).resolve().parents[1] / "include" / "dpu" / "built_ins.h"

# Binary operations: opcode -> C body computing `r` from uint32_t a, b (b is the second
# source register or the immediate). Carry-using ones read and write __dpurt_carry().
_MUL_PARTS = {
    "sl": "__dpurt_s8(a_)",
    "sh": "__dpurt_s8(a_ >> 8)",
    "ul": "(int32_t)(a_ & 0xffu)",
    "uh": "(int32_t)((a_ >> 8) & 0xffu)",
}

BINARY: dict[str, str] = {
    "add": "return __dpurt_add(a, b, 0u);",
    "addc": "return __dpurt_add(a, b, *__dpurt_carry());",
    "sub": "return __dpurt_sub(a, b, 0u);",
    "subc": "return __dpurt_sub(a, b, *__dpurt_carry());",
    "rsub": "return __dpurt_sub(b, a, 0u);",
    "rsubc": "return __dpurt_sub(b, a, *__dpurt_carry());",
    "and": "return a & b;",
    "andn": "return ~a & b;",
    "or": "return a | b;",
    "orn": "return ~a | b;",
    "xor": "return a ^ b;",
    "nand": "return ~(a & b);",
    "nor": "return ~(a | b);",
    "nxor": "return ~(a ^ b);",
    "asr": "return __dpurt_asr(a, b);",
    "lsl": "return a << (b & 31u);",
    "lsr": "return a >> (b & 31u);",
    "lsl1": "return (a << (b & 31u)) | ((1u << (b & 31u)) - 1u);",
    "lsr1": "return (a >> (b & 31u)) | ~(0xffffffffu >> (b & 31u));",
    "lslx": "return (b & 31u) == 0u ? 0u : a >> (32u - (b & 31u));",
    "lsrx": "return (b & 31u) == 0u ? 0u : a << (32u - (b & 31u));",
    "rol": "return __dpurt_rol(a, b);",
    "ror": "return __dpurt_rol(a, 32u - (b & 31u));",
    "cmpb4": (
        "uint32_t r = 0u;\n"
        "    for (unsigned i = 0; i < 32u; i += 8u)\n"
        "        if (((a >> i) & 0xffu) == ((b >> i) & 0xffu))\n"
        "            r |= 1u << i;\n"
        "    return r;"
    ),
}
for _x, _xe in _MUL_PARTS.items():
    for _y, _ye in _MUL_PARTS.items():
        if _x[0] == "u" and _y[0] == "s":
            continue  # the ISA has signed x unsigned, not unsigned x signed
        BINARY[f"mul_{_x}_{_y}"] = (
            f"uint32_t a_ = a, b_ = b;\n    return (uint32_t)({_xe} * {_ye.replace('a_', 'b_')});"
        )

UNARY: dict[str, str] = {
    # clz first: clo and cls use it.
    "clz": "uint32_t n = 0u;\n    while (n < 32u && !(a & (0x80000000u >> n)))\n        n++;\n"
    "    return n;",
    "cao": "uint32_t n = 0u;\n    for (; a != 0u; a &= a - 1u)\n        n++;\n    return n;",
    "clo": "return __dpurt_op_clz(~a);",
    "cls": "return (a & 0x80000000u) ? __dpurt_op_clz(~a) : __dpurt_op_clz(a);",
    "extsb": "return (uint32_t)__dpurt_s8(a);",
    "extsh": "return (uint32_t)(((int32_t)(a & 0xffffu) ^ 0x8000) - 0x8000);",
    "extub": "return a & 0xffu;",
    "extuh": "return a & 0xffffu;",
}

# Shift-and-add operations (rrri form): opcode -> body over a, b, sh.
TERNARY: dict[str, str] = {
    "lsl_add": "return __dpurt_add(a, b << (sh & 31u), 0u);",
    "lsl_sub": "return __dpurt_sub(a, b << (sh & 31u), 0u);",
    "lsr_add": "return __dpurt_add(a, b >> (sh & 31u), 0u);",
    "rol_add": "return __dpurt_add(a, __dpurt_rol(b, sh), 0u);",
}

# Which opcodes the ISA has in each result-only form.
RRR = list(BINARY)
RRI = [
    "add",
    "addc",
    "and",
    "or",
    "xor",
    "asr",
    "lsl",
    "lsl1",
    "lslx",
    "lsr",
    "lsr1",
    "lsrx",
    "rol",
    "ror",
]
RIR = ["sub", "subc"]
RR = list(UNARY)
RRRI = list(TERNARY)

# Instructions whose exact semantics no public document gives.
UNKNOWN = {"hash": "RRR RRI", "sats": "RR", "lsl1x": "RRR RRI", "lsr1x": "RRR RRI"}

_LOGIC = ["and", "andn", "nand", "nor", "nxor", "or", "orn", "xor", "hash"]
_SHIFTS = ["asr", "lsl", "lsl1", "lsl1x", "lslx", "lsr", "lsr1", "lsr1x", "lsrx", "rol", "ror"]
_MULS = [op for op in BINARY if op.startswith("mul_")]
_RR_ALL = [*UNARY, "sats"]
# Forms with a condition (and, with a trailing `i`, a jump target): opcode lists per form.
CONDITION_FORMS: dict[str, list[str]] = {
    "rric": ["add", "addc", *_LOGIC, *_SHIFTS, "sub", "subc"],
    "rrici": ["add", "addc", *_LOGIC, *_SHIFTS, "sub", "subc"],
    "rrif": ["add", "addc", *_LOGIC, "sub", "subc"],
    "rrrc": [*RRR, "hash", "lsl1x", "lsr1x"],
    "rrrci": ["add", "addc", *_LOGIC, "cmpb4", *_SHIFTS, *_MULS, "rsub", "rsubc", "sub", "subc"],
    "rrc": _RR_ALL,
    "rrci": _RR_ALL,
    "rrrici": RRRI,
    "rirc": RIR,
    "rirci": RIR,
}

# Instructions with no meaning on the emulator: name -> reason.
SPECIAL: dict[str, str] = {}
for _name, _why in [
    ("stop_ stop_ci", "stops the tasklet; return from main() or call halt()"),
    ("fault_i", "raises a DPU fault; use the runtime's fault handling (e.g. abort())"),
    ("boot_rici resume_rici", "boots or resumes another tasklet; tasklets all start at launch"),
    ("acquire_rici release_rici", "raw atomic bits; use mutex.h, sem.h or barrier.h"),
    (
        "time_r time_rci time_z time_zci time_s_r time_u_r time_s_rci time_u_rci",
        "reads the cycle counter; use perfcounter.h",
    ),
    (
        "time_cfg_rr time_cfg_rrci time_cfg_zr time_cfg_zrci time_cfg_s_rr time_cfg_u_rr",
        "configures the cycle counter; use perfcounter.h",
    ),
    ("ldma_rri ldmai_rri sdma_rri", "raw DMA; use mram_read()/mram_write() from mram.h"),
    ("call_rri call_rrr call_zri call_zrr", "a raw call; call the function in C"),
    ("movd_ddci swapd_ddci", "a conditional jump; write the move and the branch in C"),
    (
        "mul_step_drdici div_step_drdici",
        "a step of the runtime's multiply/divide loops with a conditional jump; write * or / in C",
    ),
    (
        "lbs_erri lbs_s_erri lbu_erri lbu_u_erri lhs_erri lhs_s_erri lhu_erri lhu_u_erri "
        "lw_erri lw_s_erri lw_u_erri ld_edri sb_erii sb_erir sb_id_erii sh_erii sh_erir "
        "sh_id_erii sw_erii sw_erir sw_id_erii sd_erii sd_erid sd_id_erii",
        "a raw WRAM access by DPU address; use pointers in C",
    ),
]:
    for _n in _name.split():
        SPECIAL[_n] = _why

_IMM_FORMS = {"rri", "rir", "rrri"}


def _params(form: str) -> tuple[list[str], str]:
    """The macro parameters of a result-only form, and the destination kind."""
    base = form[2:] if form[:2] in ("s_", "u_") else form
    dest = "dc" if form[:2] in ("s_", "u_") else ("" if base.startswith("z") else "rc")
    shape = base[1:]  # the operands after the destination (r, or z for none)
    names = {
        "rr": ["ra", "rb"],
        "ri": ["ra", "imm"],
        "ir": ["imm", "ra"],
        "r": ["ra"],
        "rri": ["ra", "rb", "imm"],
    }[shape]
    return ([dest] if dest else []) + names, dest


def _assign(dest: str, form: str, value: str) -> str:
    if not dest:
        return f"((void){value})"
    if form.startswith("s_"):
        return f"(({dest}) = __dpurt_sext64({value}))"
    if form.startswith("u_"):
        return f"(({dest}) = (uint64_t){value})"
    return f"(({dest}) = {value})"


def _arg(name: str) -> str:
    return "__DPURT_IMM(imm)" if name == "imm" else f"(uint32_t)({name})"


def _result_macros() -> list[str]:
    out: list[str] = []
    groups: list[tuple[str, list[str], str]] = [
        ("rrr", RRR, "binary"),
        ("rri", RRI, "binary"),
        ("rir", RIR, "binary"),
        ("rr", RR, "unary"),
        ("rrri", RRRI, "ternary"),
    ]
    for base, ops, kind in groups:
        # The ISA has no s_/u_ form of rir without a condition.
        variants = [base, "z" + base[1:]]
        if base != "rir":
            variants += ["s_" + base, "u_" + base]
        for op in ops:
            for form in variants:
                params, dest = _params(form)
                srcs = [p for p in params if p != dest]
                if kind == "binary":
                    a, b = srcs  # for rir: the immediate, then the register
                    value = f"__dpurt_op_{op}({_arg(a)}, {_arg(b)})"
                elif kind == "unary":
                    value = f"__dpurt_op_{op}({_arg(srcs[0])})"
                else:
                    value = f"__dpurt_op_{op}({', '.join(_arg(s) for s in srcs)})"
                out.append(
                    f"#define __builtin_{op}_{form}({', '.join(params)}) "
                    f"{_assign(dest, form, value)}"
                )
    # Pseudo-instructions of the assembler that the SDK exposes too.
    out += [
        "#define __builtin_move_rr(rc, ra) ((rc) = (uint32_t)(ra))",
        "#define __builtin_move_ri(rc, imm) ((rc) = __DPURT_IMM(imm))",
        "#define __builtin_move_s_rr(dc, ra) ((dc) = __dpurt_sext64((uint32_t)(ra)))",
        "#define __builtin_move_u_rr(dc, ra) ((dc) = (uint64_t)(uint32_t)(ra))",
        "#define __builtin_move_s_ri(dc, imm) ((dc) = __dpurt_sext64(__DPURT_IMM(imm)))",
        "#define __builtin_move_u_ri(dc, imm) ((dc) = (uint64_t)__DPURT_IMM(imm))",
        "#define __builtin_neg_rr(rc, ra) ((rc) = __dpurt_sub(0u, (uint32_t)(ra), 0u))",
        "#define __builtin_not_rr(rc, ra) ((rc) = ~(uint32_t)(ra))",
        # A real instruction: delay loops built of nops keep their length, and the cost
        # counting (one DPU instruction per nop) sees them.
        '#define __builtin_nop_() __asm__ volatile("nop")',
    ]
    return out


def _error(name: str, why: str) -> str:
    message = f"__builtin_{name}: has no meaning on the pyupmem emulator ({why})"
    return f'#define __builtin_{name}(...) __DPURT_NO_MEANING("{message}")'


def _error_macros() -> list[str]:
    out: list[str] = []
    cond_why = "a form with a condition or a jump target; write the comparison or the branch in C"
    for form, ops in CONDITION_FORMS.items():
        for op in ops:
            for variant in (form, "z" + form[1:], "s_" + form, "u_" + form):
                out.append(_error(f"{op}_{variant}", cond_why))
    for op, shapes in UNKNOWN.items():
        unknown_why = "its exact semantics are not public, so it is not emulated"
        for shape in shapes.lower().split():
            variants = [shape, "z" + shape[1:], "s_" + shape, "u_" + shape]
            for variant in variants:
                out.append(_error(f"{op}_{variant}", unknown_why))
    for name, why in SPECIAL.items():
        out.append(_error(name, why))
    return out


def _functions() -> list[str]:
    out: list[str] = []
    for op, body in BINARY.items():
        out.append(
            f"static inline uint32_t __dpurt_op_{op}(uint32_t a, uint32_t b)\n{{\n    {body}\n}}"
        )
    for op, body in UNARY.items():
        out.append(f"static inline uint32_t __dpurt_op_{op}(uint32_t a)\n{{\n    {body}\n}}")
    for op, body in TERNARY.items():
        out.append(
            f"static inline uint32_t __dpurt_op_{op}(uint32_t a, uint32_t b, uint32_t sh)\n"
            f"{{\n    {body}\n}}"
        )
    return out


PRELUDE = r"""/* built_ins.h: the DPU's ISA intrinsics (__builtin_<opcode>_<operand form>) for
 * programs built with the pyupmem emulator's toolchain.
 *
 * GENERATED by pyupmem/emu/tools/gen_built_ins.py: edit the generator, not this file.
 *
 * Provided, with the semantics of the 32-bit DPU: the forms that compute a register
 * value (rrr, rri, rir, rr, rrri), their z forms (result discarded), and their s_/u_
 * forms (result sign-/zero-extended into a 64-bit destination); move/neg/not; nop_.
 * Shift amounts use their low 5 bits. Immediates may be string literals, as the SDK
 * takes them ("12", "-3", "0x1f"), or integer expressions.
 *
 * Carry: each tasklet has one carry flag. add, addc, lsl_add, lsr_add, rol_add (and
 * neg) set it to the carry out of the 32-bit addition; sub, subc, rsub, rsubc and
 * lsl_sub set it to the borrow (1 when the subtrahend, plus the incoming borrow for the
 * c forms, exceeds the minuend); addc adds it, subc/rsubc subtract it. Every other
 * intrinsic, and any C code in between, leaves it unchanged. (On a DPU, instructions
 * the compiler places between two intrinsics may change it: chain addc/subc directly
 * after the operation whose carry they use.)
 *
 * Everything else - forms with a condition or a jump target, control flow, DMA, raw
 * WRAM access, atomic bits, tasklet control, time registers, hash/sats/lsl1x/lsr1x -
 * stops the compilation with a message naming the intrinsic. */
#ifndef _DPUSYSCORE_BUILT_INS_H_
#define _DPUSYSCORE_BUILT_INS_H_

#include <defs.h>
#include <stdint.h>

#define __DPURT_NO_MEANING(message) \
    ((void)sizeof(struct { _Static_assert(0, message); int __dpurt_unused; }))

/* The calling tasklet's carry flag (tasklets switch only inside runtime calls). */
static inline uint32_t *__dpurt_carry(void)
{
    static uint32_t carry;
    return &carry;
}

static inline uint32_t __dpurt_add(uint32_t a, uint32_t b, uint32_t carry_in)
{
    uint64_t sum = (uint64_t)a + b + (carry_in & 1u);
    *__dpurt_carry() = (uint32_t)(sum >> 32);
    return (uint32_t)sum;
}

static inline uint32_t __dpurt_sub(uint32_t a, uint32_t b, uint32_t borrow_in)
{
    uint64_t subtrahend = (uint64_t)b + (borrow_in & 1u);
    *__dpurt_carry() = subtrahend > a;
    return (uint32_t)((uint64_t)a - subtrahend);
}

static inline int32_t __dpurt_s8(uint32_t a)
{
    return ((int32_t)(a & 0xffu) ^ 0x80) - 0x80;
}

static inline int64_t __dpurt_sext64(uint32_t a)
{
    return (int64_t)a - (int64_t)((uint64_t)(a >> 31) << 32);
}

static inline uint32_t __dpurt_asr(uint32_t a, uint32_t b)
{
    uint32_t sh = b & 31u;
    uint32_t r = a >> sh;
    return (a & 0x80000000u) ? r | ~(0xffffffffu >> sh) : r;
}

static inline uint32_t __dpurt_rol(uint32_t a, uint32_t b)
{
    uint32_t sh = b & 31u;
    return sh == 0u ? a : (a << sh) | (a >> (32u - sh));
}

/* An immediate given as the SDK gives it, a string literal: decimal, or hexadecimal
 * with 0x, with an optional sign. */
static inline uint32_t __dpurt_imm_str(const char *s)
{
    uint32_t value = 0u, base = 10u;
    int negative = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '-' || *s == '+')
        negative = *s++ == '-';
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16u;
        s += 2;
    }
    for (;; s++) {
        uint32_t digit;
        if (*s >= '0' && *s <= '9')
            digit = (uint32_t)(*s - '0');
        else if (base == 16u && *s >= 'a' && *s <= 'f')
            digit = (uint32_t)(*s - 'a' + 10);
        else if (base == 16u && *s >= 'A' && *s <= 'F')
            digit = (uint32_t)(*s - 'A' + 10);
        else
            break;
        value = value * base + digit;
    }
    return negative ? 0u - value : value;
}

static inline uint32_t __dpurt_imm_int(long long value)
{
    return (uint32_t)value;
}

#define __DPURT_IMM(x) \
    _Generic((x), char *: __dpurt_imm_str, const char *: __dpurt_imm_str, \
             default: __dpurt_imm_int)(x)
"""


def render() -> str:
    functions = _functions()
    results = _result_macros()
    errors = _error_macros()
    parts = [
        PRELUDE,
        "/* Operations. */",
        "\n\n".join(functions),
        "",
        f"/* The {len(results)} intrinsics the emulator provides. */",
        "\n".join(results),
        "",
        f"/* The {len(errors)} intrinsics that have no meaning on the emulator. */",
        "\n".join(errors),
        "",
        "#endif /* _DPUSYSCORE_BUILT_INS_H_ */",
        "",
    ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if HEADER.read_text() != text:
            print(f"{HEADER} is not what {Path(__file__).name} produces", file=sys.stderr)
            return 1
        return 0
    HEADER.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
