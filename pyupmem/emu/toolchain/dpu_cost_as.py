#!/usr/bin/env python3
"""The assembler step of DPU programs built for the pyupmem emulator, with cost counting.

gcc turns a DPU program's C into x86-64 assembly and hands it to ``as``; the emulator's
compiler wrapper puts this script first on gcc's tool path (``-B``), so it sees that
assembly, adds the DPU cost of each straight-line run of instructions, and passes the
result to the real ``as``.

Why the assembly and not a compiler pass: it needs no compiler plug-in or second
compiler (only the gcc that builds the program), and it sees the code after every
optimisation, so a cost is added exactly where an instruction survived.

How a cost is counted: the program is compiled with ``-ffixed-r15``, so no compiled
code uses r15, and it holds the tasklet's instruction count (it is callee-saved, so the
tasklet switch keeps one count per tasklet). At the start of each run of instructions
that ends at a label or a jump, ``leaq COST(%r15), %r15`` adds the run's cost (``lea``
leaves the flags alone, and a register add costs the host about nothing). Before each
call, tail call and return, ``movq %r15, __dpurt_instructions(%rip)`` publishes the
count, so the runtime reads it whenever the program calls it.

The cost of an x86-64 instruction is the number of DPU instructions its work takes on a
DPU (COSTS below): one for 32-bit arithmetic, logic, moves, loads, stores and branches;
more for 64-bit arithmetic and divisions; dozens to thousands for float and double
(software on the DPU). The heavy ones are calibrated on the PrIM characterisation's
throughputs (docs: "Timing").

An access through ``__mram_ptr`` or to an ``__mram`` variable (a ``%gs:`` operand) is a DMA
on a DPU: a call in front of it (which keeps every register and the flags) charges the
DMA's time at a switch point, as ``mram_read`` does.

A 32-bit multiply costs what it costs on a DPU, which depends on its operands: the
runtime's ``__mulsi3`` puts the smaller (unsigned) operand in r0, the high half of the
pair d0, and issues one ``mul_step`` per bit of it, shifting r0 right and leaving as
soon as it is zero (UPMEM's compiler-rt for the DPU). A ``mul_step`` is one instruction
and takes one issue slot, as every DPU instruction does (UPMEM's ISA); uPIMulator's
register-bank rule, which would add a cycle for its second read of the even bank (r0 and
r2), overestimates exactly the multiply-bound PrIM kernels on hardware (GEMV by 40%,
HST-S by 27%), so it is not applied. So each ``imull`` of two registers or of a register
and memory gets a few host instructions in front of it that add ``8 + bitlength(min(a,
b))`` issue cycles to the count at run time (the call, the operand swap, clearing the
accumulator, the steps, the result's move, the return). A product of two operands that
the same run of code loaded or extended from bytes is one DPU instruction
(``mul_ul_ul``, ``mul_sl_sl``...), as the DPU compiler emits for 8-bit types. The
inserted code needs a scratch register: one that gcc's code writes afresh after the
``imull``, in the same run, before anything reads it (a dead register, so nothing is
saved), or else one it saves in the red zone, which the program leaves free
(``-mno-red-zone``) and which signal delivery skips; it clobbers the flags just before
the ``imull``, which clobbers them anyway.

A 32-bit division is the runtime's ``__udiv32``, which counts the leading zeros of both
operands and jumps into its ladder of ``div_step`` instructions so that only the
quotient's bits are computed: ``bitlength(dividend) - bitlength(divider) + 1`` steps of
one issue slot, 8 instructions around them,
6 in all when the quotient is 0; ``__div32`` (signed) adds 7 (saving a register, the two
sign tests, the return) and works on the magnitudes. Each ``divl``/``idivl`` gets host
instructions in front of it that add this at run time.

Where gcc's x86 code is systematically shorter than the DPU compiler's, the DPU's
sequence is charged (see the docs' table of patterns): a loop of one run that walks an
array through a pointer register (``(%reg)``, ``8(%reg)``) costs one more instruction per
round, the index that the DPU's loop keeps besides its addresses (the published
throughputs of PrIM's microbenchmarks: 6 instructions per int32 element where gcc's loop
has 5, 7 per int64 element where it has 6). A call to the emulator's ``mram_read`` or
``mram_write`` counts as the DPU's one ``ldma``/``sdma``: the constants it moves into the
size, file and line arguments are not DPU instructions.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator

COUNTER = "%r15"
PUBLISHED = "__dpurt_instructions"

# Base mnemonic (AT&T, without its size suffix) -> DPU instructions, for 32-bit operands.
COSTS: dict[str, int] = {
    # 32-bit integer arithmetic and logic, moves, address arithmetic: one instruction
    **dict.fromkeys(
        "add sub and or xor not neg inc dec cmp test shl sal shr sar rol ror adc sbb bt "
        "mov movabs lea xchg cltq cqto cltd cwtl cbtw cwtd setcc cmovcc popcnt lzcnt bsr "
        "push pop leave".split(),
        1,
    ),
    "bswap": 4,
    "tzcnt": 3,
    "bsf": 3,
    # branches and calls
    "jmp": 1,
    "jcc": 1,
    "call": 1,
    "ret": 1,
    # multiplies and divisions (software on the DPU: 8x8 multiplies, div_step loops); a
    # 32-bit imul of two variables is counted at run time instead (multiply_cost below)
    "imul": 30,
    "mul": 40,
    "div": 25,
    "idiv": 25,
    # float (software on the DPU)
    "addss": 65,
    "subss": 70,
    "mulss": 177,
    "divss": 1023,
    "sqrtss": 1500,
    "minss": 15,
    "maxss": 15,
    "ucomiss": 15,
    "comiss": 15,
    "cvtsi2ss": 30,
    "cvttss2si": 30,
    "cvtss2si": 30,
    "cvtss2sd": 20,
    # double (software on the DPU)
    "addsd": 99,
    "subsd": 106,
    "mulsd": 654,
    "divsd": 2115,
    "sqrtsd": 3000,
    "minsd": 20,
    "maxsd": 20,
    "ucomisd": 20,
    "comisd": 20,
    "cvtsi2sd": 40,
    "cvttsd2si": 40,
    "cvtsd2si": 40,
    "cvtsd2ss": 25,
    # moves and bit operations on SSE registers
    **dict.fromkeys(
        "movss movsd movaps movapd movups movupd movd movq movdqa movdqu pxor xorps xorpd "
        "andps andpd andnps andnpd orps orpd unpcklps unpcklpd shufps pshufd".split(),
        1,
    ),
    # a DPU nop (__builtin_nop_) is an instruction; control-flow-integrity markers are free
    "nop": 1,
    **dict.fromkeys("endbr64 endbr32".split(), 0),
}
# 64-bit operands: what the DPU's 32-bit registers take (pairs with carry).
COSTS_64: dict[str, int] = {
    "add": 2,
    "sub": 2,
    "adc": 2,
    "sbb": 2,
    "cmp": 2,  # a 64-bit compare and its branch: sub, then subc that jumps
    "neg": 2,
    "and": 2,
    "or": 2,
    "xor": 2,
    "not": 2,
    "shl": 3,
    "sal": 3,
    "shr": 3,
    "sar": 3,
    "imul": 130,
    "mul": 130,
    "div": 245,
    "idiv": 245,
    "cvtsi2ss": 60,
    "cvtsi2sd": 60,
    "cvttss2si": 60,
    "cvttsd2si": 60,
}
# Moves whose memory operand is the whole instruction (a load or a store).
MOVES = set(
    "mov movabs push pop setcc movss movsd movaps movapd movups movupd movd movq movdqa "
    "movdqu".split()
)
X87_COST = 300  # long double: rare in DPU programs, costly everywhere
UNKNOWN_COST = 1

CONDITIONS = (
    "o no b c nae ae nb nc e z ne nz be na a nbe s ns p pe np po l nge ge nl le ng g nle"
).split()
PREFIXES = {"lock", "rep", "repe", "repz", "repne", "repnz", "notrack", "bnd", "data16"}
REG64 = re.compile(r"%(r[a-d]x|r[sd]i|r[sb]p|r(8|9|1[0-5]))\b")
LABEL = re.compile(r"^\s*([A-Za-z_.$][\w.$@]*|\d+):")
LOCAL_LABEL = re.compile(r"\.L[\w.$]+")
SECTION = re.compile(r"^\s*\.(section|text|data|bss|pushsection|popsection|previous)\b(.*)$")


def _split_operands(text: str) -> list[str]:
    operands, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            operands.append(current.strip())
            current = ""
            continue
        depth += char == "("
        depth -= char == ")"
        current += char
    if current.strip():
        operands.append(current.strip())
    return operands


def _is_memory(operand: str) -> bool:
    return not operand.startswith(("%", "$", "*%")) and operand != ""


def _base_and_width(mnemonic: str) -> tuple[str, bool]:
    """The mnemonic without its size suffix, and whether the suffix says 64-bit."""
    if mnemonic in COSTS or mnemonic.startswith(("j", "set", "cmov")):
        return mnemonic, False
    for suffix in "bwlq":
        if mnemonic.endswith(suffix) and mnemonic[:-1] in COSTS:
            return mnemonic[:-1], suffix == "q"
    if mnemonic.startswith(("movz", "movs")) and len(mnemonic) in (6, 7):
        return "mov", False  # movzbl, movslq ... (movss/movsd are in COSTS)
    return mnemonic, False


def instruction_cost(mnemonic: str, operand_text: str) -> int:
    """DPU instructions for one x86-64 instruction (AT&T syntax)."""
    base, wide = _base_and_width(mnemonic)
    if base.startswith("j"):
        base = "jmp" if base == "jmp" else "jcc"
    elif base.startswith("set") and base[3:] in CONDITIONS:
        base = "setcc"
    elif base.startswith("cmov") and base[4:].rstrip("bwlq") in CONDITIONS:
        base = "cmovcc"
    elif base.startswith("f") and base not in COSTS:
        return X87_COST
    operands = _split_operands(operand_text)
    wide = wide or any(REG64.search(op) for op in operands if op.startswith("%"))
    if base == "lea" or base in ("mov", "movabs", "push", "pop", "test", "xchg"):
        # pointers are 32-bit on the DPU (and compared with cmpl in its data model); 64-bit
        # moves are one ld/sd/movd; a 64-bit test is one `or` of the halves with a condition
        wide = False
    if mnemonic in ("movl", "movq") and len(operands) == 2 and all(
        op.startswith("%") and register_family(op) is not None for op in operands
    ):
        # A copy between general registers: x86's two-operand form (copy, then operate in
        # place) or a zero extension for 64-bit addressing; the DPU's three-operand,
        # 32-bit instructions need neither.
        return 0
    if base == "imul" and operands and operands[0].startswith("$"):
        cost = 3  # by a constant: shifts and adds (lsl_add)
    else:
        cost = (COSTS_64.get(base) if wide else None) or COSTS.get(base, UNKNOWN_COST)
    memory = [op for op in operands if _is_memory(op)]
    if memory and base not in ("lea", "jmp", "jcc", "call", "nop"):
        if base in MOVES:
            cost = max(cost, 1)  # the load or the store is the instruction
        elif _is_memory(operands[-1]) and base not in ("cmp", "test", "bt"):
            cost += 2  # read-modify-write: a load and a store around the operation
        else:
            cost += 1  # the operand's load
        if "," in memory[0]:
            cost += 1  # base + index * scale: one more instruction (lsl_add) for the address
    return cost


def direct_mram_kind(mnemonic: str, operand_text: str) -> int:
    """For an instruction that reaches MRAM directly (a ``%gs:`` operand: ``__mram_ptr``
    and ``__mram`` variables are gcc's ``__seg_gs``), the DMA the DPU compiler makes of it:
    1 a read, 2 a write, 3 both (read-modify-write); 0 for any other instruction."""
    operands = _split_operands(operand_text)
    for index, operand in enumerate(operands):
        if not operand.startswith("%gs:"):
            continue
        base = _base_and_width(mnemonic)[0]
        destination = index == len(operands) - 1 and len(operands) > 1
        if not destination or base in ("cmp", "test", "bt"):
            return 1
        return 2 if base in MOVES else 3
    return 0


BYTE_LOOPS = {"memcpy", "memmove", "memset"}

# A loop of one run that walks memory through a pointer register: the DPU's loop keeps an
# index besides its addresses, one more instruction a round (published throughputs of
# PrIM's microbenchmarks, 6 instructions per int32 element and 7 per int64 one).
LOOP_INDEX = 1


def base_of(mnemonic: str) -> str:
    return _base_and_width(mnemonic)[0]

# Runtime functions that are one inline instruction on a DPU (mutex.h's acquire and
# release): the call counts as that instruction, and the move of the mutex's address into
# the first argument before it is not needed there (the instruction names the bit).
INLINE_PRIMITIVES = {"mutex_lock", "mutex_unlock", "mutex_trylock"}
ARGUMENT_SETUP = re.compile(
    r"(movl\s+\$[\w.]+,\s*%edi|movq\s+\$[\w.]+,\s*%rdi|leaq\s+[\w.]+\(%rip\),\s*%rdi)$"
)

# The emulator's DMA entry points, which mram.h's mram_read and mram_write call with the
# size, the source file and the line. On a DPU each is one `ldma` or `sdma` (the SDK's
# mram.h: __builtin_dpu_ldma/sdma) whose size is its immediate: the call counts as that
# instruction, and constants moved into the size, file and line arguments are not there.
DMA_CALLS = {"__dpurt_mram_read", "__dpurt_mram_write"}
DMA_EXTRA_ARGUMENTS = ("rdx", "rcx", "r8")  # the size, the file, the line
IMMEDIATE_MOVE = re.compile(r"^mov[lq]?\s+\$[\w.+-]+,\s*(%\w+)$")

# __mulsi3 outside its mul_step loop: the call, the operand swap (jgtu and two moves),
# clearing the accumulator, the result's move, the return (7), and the caller's move of an
# operand into the argument registers; and the issue cycles of one mul_step.
MULSI3_FIXED = 8
MUL_STEP_CYCLES = 1
# __udiv32 around its div_step ladder: the call, two clz, the sub that finds the shift,
# two moves, the jump into the ladder, the return; 6 when the quotient is 0 (the call,
# two clz, the sub, the move of the result, the return). __div32 adds 7: sd and add of
# the stack, two clo sign tests, the call to __udiv32, ld, the return.
UDIV32_FIXED = 8
UDIV32_ZERO = 6
DIV32_SIGNED_EXTRA = 7
DIV_STEP_CYCLES = 1
# Instructions that leave a byte (zero- or sign-extended) in their destination register.
BYTE_EXTENSIONS = {"movzbl", "movsbl", "movzbw", "movsbw", "movzbq", "movsbq"}
REGISTER = re.compile(r"%([a-z0-9]+)")
SCRATCH = ("rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "rax", "rbx")
_FAMILY = {
    **{f"{p}{x}x": f"r{x}x" for x in "abcd" for p in ("r", "e", "")},
    **{f"{x}l": f"r{x}x" for x in "abcd"},
    **{f"{x}h": f"r{x}x" for x in "abcd"},
    **{f"{p}{x}": f"r{x}" for x in ("si", "di", "bp", "sp") for p in ("r", "e", "")},
    **{f"{x}l": f"r{x}" for x in ("si", "di", "bp", "sp")},
    **{f"r{n}{s}": f"r{n}" for n in range(8, 16) for s in ("", "d", "w", "b")},
}


def register_family(name: str) -> str | None:
    """The 64-bit register an operand register belongs to (``%r9d`` -> ``r9``)."""
    return _FAMILY.get(name.lstrip("%"))


def _families(operand_text: str) -> set[str]:
    return {f for f in map(register_family, REGISTER.findall(operand_text)) if f}


def _low32(family: str) -> str:
    return f"%{family}d" if family[1:].isdigit() else "%e" + family[1:]


def _scratch(
    count: int, used: set[str], dead: tuple[str, ...]
) -> tuple[list[str], list[str], list[str]]:
    """`count` scratch registers for a counting sequence, none of `used`: dead ones first,
    then others saved in the red zone. Returns the registers and the lines that save and
    restore the saved ones."""
    free = [f for f in dead if f not in used][:count]
    saved = [f for f in SCRATCH if f not in used and f not in free][: count - len(free)]
    save = [f"\tmovq\t%{f}, -{8 * (i + 1)}(%rsp)" for i, f in enumerate(saved)]
    restore = [f"\tmovq\t-{8 * (i + 1)}(%rsp), %{f}" for i, f in reversed(list(enumerate(saved)))]
    return free + saved, save, restore


def multiply_cost(
    operand_text: str, byte_registers: set[str], dead: tuple[str, ...] = ()
) -> tuple[list[str], int] | None:
    """The counting of a 32-bit ``imull SRC, DST``: host instructions to put before it and
    the static cost that remains; None where the multiply is not of two variables (by a
    constant, or the one-operand widening form), which COSTS prices. `dead` names
    registers that hold nothing live there (:func:`dead_registers`)."""
    operands = _split_operands(operand_text)
    if len(operands) != 2 or operands[0].startswith("$") or not operands[1].startswith("%"):
        return None
    source, destination = operands
    if register_family(destination) in byte_registers and (
        source.startswith("%") and register_family(source) in byte_registers
    ):
        return [], 1  # an 8-bit product: one mul_ul_ul / mul_sl_sl instruction
    (scratch,), save, restore = _scratch(1, _families(operand_text), dead)
    low = _low32(scratch)
    return [
        *save,
        f"\tmovl\t{source}, {low}",
        f"\tcmpl\t{destination}, {low}",
        f"\tcmoval\t{destination}, {low}",  # the smaller operand, unsigned
        f"\torl\t$1, {low}",  # 0 takes one mul_step as 1 does
        f"\tbsrl\t{low}, {low}",  # its bit length minus one
        f"\tleaq\t{MULSI3_FIXED + MUL_STEP_CYCLES}({COUNTER},%{scratch},{MUL_STEP_CYCLES}),"
        f" {COUNTER}",  # one per bit
        *restore,
    ], int(_is_memory(source))  # a memory operand: its load is a DPU instruction


def division_cost(
    mnemonic: str, operand_text: str, dead: tuple[str, ...] = ()
) -> tuple[list[str], int] | None:
    """The counting of a 32-bit ``divl SRC`` / ``idivl SRC`` (dividend in eax): host
    instructions to put before it and the static cost that remains; None for any other
    division (64-bit ones keep their calibrated cost). `dead` as for
    :func:`multiply_cost`."""
    operands = _split_operands(operand_text)
    if mnemonic not in ("divl", "idivl") or len(operands) != 1:
        return None
    source = operands[0]
    (first, second), save, restore = _scratch(2, _families(operand_text) | {"rax", "rdx"}, dead)
    low1, low2 = _low32(first), _low32(second)
    signed = mnemonic == "idivl"

    def magnitude(value: str, low: str) -> list[str]:
        if not signed:
            return [f"\tmovl\t{value}, {low}"]
        # |value|: negate, and keep the original where the negation is negative
        return [f"\tmovl\t{value}, {low}", f"\tnegl\t{low}", f"\tcmovsl\t{value}, {low}"]

    fixed = UDIV32_FIXED + (DIV32_SIGNED_EXTRA if signed else 0)
    zero = UDIV32_ZERO + (DIV32_SIGNED_EXTRA if signed else 0)
    # steps - 1 = bsr(dividend) - bsr(divider); a negative difference (quotient 0) is
    # replaced by the value that makes the lea below add `zero`.
    floor = (zero - fixed - DIV_STEP_CYCLES) // DIV_STEP_CYCLES
    if source.startswith("%") and register_family(source) in ("rax", "rdx"):
        return None  # not emitted by gcc for a C division; keep the flat cost
    return [
        *save,
        *magnitude("%eax", low1),
        f"\torl\t$1, {low1}",
        f"\tbsrl\t{low1}, {low1}",
        *magnitude(source, low2),
        f"\torl\t$1, {low2}",
        f"\tbsrl\t{low2}, {low2}",
        f"\tsubl\t{low2}, {low1}",
        f"\tmovl\t${floor}, {low2}",
        f"\tcmovsl\t{low2}, {low1}",
        f"\tmovslq\t{low1}, %{first}",
        f"\tleaq\t{fixed + DIV_STEP_CYCLES}({COUNTER},%{first},{DIV_STEP_CYCLES}), {COUNTER}",
        *restore,
    ], int(_is_memory(source))


MEMORY_OPERAND = re.compile(r"^(?P<disp>[^(]*)\((?P<base>%\w+)?(?:,(?P<index>%\w+)?(?:,\d+)?)?\)$")


def pointer_base(operand: str) -> str | None:
    """The register a memory operand addresses through alone (``8(%rax)`` -> ``rax``):
    a pointer, not an array named by its symbol, the stack or an index."""
    match = MEMORY_OPERAND.match(operand)
    if match is None or match.group("base") is None or match.group("index") is not None:
        return None
    displacement = match.group("disp").strip()
    if displacement and not re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", displacement):
        return None
    family = register_family(match.group("base"))
    return None if family in (None, "rsp", "rbp") else family


def stepped_register(mnemonic: str, operand_text: str) -> str | None:
    """The register an instruction steps by a constant (``addl $4, %eax``, ``leal
    8(%rax), %eax``, ``incl``), or None."""
    operands = _split_operands(operand_text)
    base = _base_and_width(mnemonic)[0]
    if base in ("add", "sub") and len(operands) == 2 and operands[0].startswith("$"):
        return register_family(operands[1]) if operands[1].startswith("%") else None
    if base in ("inc", "dec") and len(operands) == 1 and operands[0].startswith("%"):
        return register_family(operands[0])
    if base == "lea" and len(operands) == 2 and operands[1].startswith("%"):
        target = register_family(operands[1])
        return target if target is not None and pointer_base(operands[0]) == target else None
    return None


def _writes(operand_text: str, family: str) -> bool:
    """Whether an instruction's destination (its last operand) is a register of `family`."""
    operands = _split_operands(operand_text)
    last = operands[-1] if operands else ""
    return last.startswith("%") and register_family(last) == family


def _defines_byte(mnemonic: str, operands: list[str]) -> bool:
    """Whether the instruction leaves a byte-sized value in its destination register."""
    if mnemonic in BYTE_EXTENSIONS:
        return True
    if mnemonic in ("andl", "andq", "andw") and operands and operands[0].startswith("$"):
        try:
            return 0 <= int(operands[0][1:], 0) <= 0xFF
        except ValueError:
            return False
    return False


def _track_byte_registers(mnemonic: str, operand_text: str, byte_registers: set[str]) -> None:
    """Updates which registers hold a byte, after one instruction of a run."""
    operands = _split_operands(operand_text)
    if mnemonic.startswith(("call", "ret", "j")):
        byte_registers.clear()
        return
    base = _base_and_width(mnemonic)[0]
    if not operands or base in ("cmp", "test", "bt", "push"):
        return
    written = [operands[-1]] + ([operands[0]] if base == "xchg" else [])
    for operand in written:
        family = register_family(operand) if operand.startswith("%") else None
        if family is None:
            continue
        if _defines_byte(mnemonic, operands):
            byte_registers.add(family)
        else:
            byte_registers.discard(family)


# Instructions that write their last operand, a whole 32- or 64-bit register (a 32-bit write
# clears the upper half), without reading it: after one, the register's old value is dead.
PURE_WRITES = {
    *"mov movl movq movabsq movd lea leal leaq pop popq movslq".split(),
    *(f"mov{x}{y}" for x in "zs" for y in ("bl", "wl", "bq", "wq")),
    *(f"{c}{t}{w}" for c in ("cvt", "cvtt") for t in ("ss2si", "sd2si") for w in ("", "l", "q")),
}
# Instructions without operands that read no general register, and those that read rax
# (its sign extensions); any other one without operands (a string or system instruction)
# ends the scan.
READS_NOTHING = {"nop", "endbr64", "endbr32", "pause", "lfence", "mfence", "sfence"}
READS_RAX = {"cltd", "cqto", "cltq", "cwtl", "cwtd", "cbtw"}
# Instructions with operands that read general registers they do not name.
IMPLICIT_READS = {
    **dict.fromkeys("mul mull mulq div divl divq idiv idivl idivq".split(), ("rax", "rdx")),
    **dict.fromkeys(("cmpxchg", "cmpxchgl", "cmpxchgq"), ("rax",)),
    **dict.fromkeys(("cmpxchg8b", "cmpxchg16b"), ("rax", "rdx", "rbx", "rcx")),
    **dict.fromkeys(("mulx", "mulxl", "mulxq"), ("rdx",)),
    **dict.fromkeys(("xlat", "xlatb"), ("rax", "rbx")),
}
ENDS_SCAN = ("j", "call", "ret", "loop")
EMITTING_DIRECTIVES = {
    f".{d}" for d in "byte short word long quad value int insn inst ascii string zero fill".split()
}
# Registers a counting sequence may use when dead (never the stack or frame pointer, or the
# counter).
CANDIDATES = (*SCRATCH, "r12", "r13", "r14")


def _instruction(line: str) -> tuple[str, str]:
    """The first word of an instruction line (its mnemonic, or a prefix, or a directive)
    and the rest, its operand text."""
    parts = line.split(None, 1)
    return parts[0], parts[1] if len(parts) > 1 else ""


def dead_registers(following: Iterator[tuple[str, bool]], exclude: set[str]) -> tuple[str, ...]:
    """The registers (of CANDIDATES, none of `exclude`) that hold nothing live before the
    first of `following`: the next lines of gcc's assembly, each with whether it starts a
    new run (a branch target, a change of section). A register is dead when a whole write
    of it (PURE_WRITES, or a xor or sub of it with itself) comes before any read in the
    same run; the scan ends, leaving the rest live, at a jump, call, return or branch
    target, or at an instruction it does not know (a prefix, one without operands, bytes
    emitted into the code)."""
    open_ = [f for f in CANDIDATES if f not in exclude]
    dead: list[str] = []
    for text, starts_run in following:
        if starts_run or not open_:
            break
        if not text:
            continue  # a debug label's line, a comment
        if text.startswith("."):
            if _instruction(text)[0] in EMITTING_DIRECTIVES:
                break  # bytes in the code: an instruction this scan cannot read
            continue  # a directive (.loc, .cfi_...)
        if ";" in text:
            break  # several instructions on one line (`rep; movsb`)
        mnemonic, operand_text = _instruction(text)
        if mnemonic in READS_NOTHING:
            continue
        operands = _split_operands(operand_text)
        if mnemonic in PREFIXES or mnemonic.startswith(ENDS_SCAN) or not operands:
            if mnemonic in READS_RAX:
                open_ = [f for f in open_ if f != "rax"]
                continue
            break
        implicit = IMPLICIT_READS.get(mnemonic, ())
        if mnemonic.startswith("imul") and len(operands) == 1:
            implicit = ("rax", "rdx")  # the widening form
        open_ = [f for f in open_ if f not in implicit]
        last = operands[-1]
        target = register_family(last) if last.startswith("%") else None
        whole = target is not None and last.startswith(("%e", "%r")) and last[-1] not in "wb"
        zeroing = (
            _base_and_width(mnemonic)[0] in ("xor", "sub")
            and len(operands) == 2
            and operands[0] == last
        )
        written = target if whole and (mnemonic in PURE_WRITES or zeroing) else None
        read = _families(operand_text if written is None or zeroing else ",".join(operands[:-1]))
        if zeroing:
            read.discard(written)
        for family in read:
            if family in open_:
                open_.remove(family)
        if written in open_:
            open_.remove(written)
            dead.append(written)
    return tuple(f for f in CANDIDATES if f in dead)


def _callee(operand_text: str) -> str:
    """The function a call or jump names (``memcpy@PLT`` -> ``memcpy``)."""
    return operand_text.strip().split("@")[0]


def _is_local(target: str) -> bool:
    return target.startswith(".L")


def _sections(assembly: str) -> Iterator[tuple[str, str, bool, bool]]:
    """Each line with the name of its section, whether that section holds code, and
    whether the line itself changes section."""
    sections: list[str] = [".text"]
    for line in assembly.splitlines():
        section = SECTION.match(line)
        if section:
            kind, rest = section.group(1), section.group(2).strip()
            if kind == "pushsection":
                sections.append(rest)
            elif kind == "popsection" and len(sections) > 1:
                sections.pop()
            elif kind == "previous" and len(sections) > 1:
                sections[-1], sections[-2] = sections[-2], sections[-1]
            elif kind in ("text", "data", "bss"):
                sections[-1] = "." + kind
            elif kind == "section":
                sections[-1] = rest
        current = sections[-1]
        name = current.split(",")[0].strip().strip('"')
        flags = current.split(",")[1].strip().strip('"') if "," in current else ""
        yield line, name, name.startswith(".text") or "x" in flags, section is not None


def _jump_targets(assembly: str) -> set[str]:
    """The local labels (.L...) that code can reach: those named by an instruction or by
    data outside the debug sections (jump tables). gcc's other local labels (.LVL, .LBB,
    .LFB ... for debug information) mark no branch target and must not split a run."""
    targets: set[str] = set()
    for line, section, _, _ in _sections(assembly):
        if section.startswith(".debug"):
            continue
        text = line.split("#", 1)[0]
        label = LABEL.match(text.strip())
        if label:
            text = text.strip()[label.end() :]
        targets.update(LOCAL_LABEL.findall(text))
    return targets


def _add_to_lea(line: str, cost: int) -> str:
    """A prologue's ``leaq N(%r15,%reg,k), %r15`` with `cost` more in its displacement."""
    head, _, rest = line.partition("leaq\t")
    displacement, _, operands = rest.partition("(")
    return f"{head}leaq\t{int(displacement) + cost}({operands}"


def instrument(assembly: str) -> tuple[str, int]:
    """The assembly with cost counting added; also how many runs were counted."""
    out: list[str] = []
    insert_at: int | None = None  # index in `out` where the current run's lea goes
    cost = 0
    runs = 0
    compared = False  # the previous instruction was a compare
    byte_registers: set[str] = set()  # registers the current run filled with a byte
    names_argument = False  # the first argument (rdi) holds an address put there as a constant
    targets = _jump_targets(assembly)
    run_label: str | None = None  # the label the current run starts at
    stepped: set[str] = set()  # registers the current run steps by a constant
    pointers: set[str] = set()  # registers the current run addresses memory through alone
    constant_arguments: dict[str, int] = {}  # argument register -> cost of the constant move
    # Index in `out` of the first run-time count's lea of the current run (a multiply's or
    # a division's), unless the run published its count before it: the run's own cost is
    # added there rather than by a lea of its own, one add fewer on the counter's chain.
    fold_into: int | None = None
    published = False  # the current run published its count (a direct MRAM access)

    def close_run() -> None:
        nonlocal insert_at, cost, runs, run_label, fold_into, published
        if fold_into is not None and cost > 0:
            out[fold_into] = _add_to_lea(out[fold_into], cost)
            runs += 1
        elif insert_at is not None and cost > 0:
            out.insert(insert_at, f"\tleaq\t{cost}({COUNTER}), {COUNTER}")
            runs += 1
        insert_at = None
        fold_into = None
        published = False
        cost = 0
        byte_registers.clear()
        run_label = None
        stepped.clear()
        pointers.clear()
        constant_arguments.clear()

    entries = list(_sections(assembly))

    def following(start: int) -> Iterator[tuple[str, bool]]:
        """The lines from `start` on, for dead_registers: each instruction's text and
        whether a new run starts there."""
        for text, _, runs_code, new_section in entries[start:]:
            text = text.split("#", 1)[0].strip()
            if new_section or not runs_code:
                yield "", True
                return
            label = LABEL.match(text)
            if label:
                name = label.group(1)
                if not name.startswith(".L") or name in targets:
                    yield "", True
                    return
                text = text[label.end() :].strip()
            yield text, False

    for index, (line, _, executable, changes_section) in enumerate(entries):
        stripped = line.split("#", 1)[0].strip()
        if changes_section:
            close_run()
            out.append(line)
            continue
        label = LABEL.match(stripped) if executable else None
        if label and label.group(1).startswith(".L") and label.group(1) not in targets:
            # A debug-information label: not a branch target, the run goes on.
            out.append(line)
            continue
        if not label and (not executable or not stripped or stripped.startswith(".")):
            out.append(line)
            continue
        if label:
            close_run()
            run_label = label.group(1)
            out.append(line)
            rest = stripped[label.end() :].strip()
            if not rest:
                continue
            stripped = rest  # an instruction on the label's line
            out.pop()
            out.append(line[: line.index(":") + 1])
            line = "\t" + rest
        mnemonic, operand_text = _instruction(stripped)
        while mnemonic in PREFIXES and operand_text:
            mnemonic, operand_text = _instruction(operand_text)
        if insert_at is None:
            insert_at = len(out)
        direct = direct_mram_kind(mnemonic, operand_text)
        if direct:
            # An access through __mram_ptr (gs): a DMA on a DPU. The count is published
            # first, since the runtime charges the DMA at the tasklet's clock.
            out.append(f"\tmovq\t{COUNTER}, {PUBLISHED}(%rip)")
            out.append(f"\tcall\t__dpurt_direct_mram_{direct}")
            published = True
        counted = None
        if mnemonic == "imull":
            dead = dead_registers(following(index + 1), _families(operand_text))
            counted = multiply_cost(operand_text, byte_registers, dead)
        elif mnemonic in ("divl", "idivl"):
            dead = dead_registers(following(index + 1), _families(operand_text) | {"rax", "rdx"})
            counted = division_cost(mnemonic, operand_text, dead)
        step = stepped_register(mnemonic, operand_text)
        if step is not None:
            stepped.add(step)
        for operand in _split_operands(operand_text):
            pointer = pointer_base(operand) if _is_memory(operand) else None
            if pointer is not None and base_of(mnemonic) != "lea":
                pointers.add(pointer)
        if (
            mnemonic.startswith("j")
            and mnemonic != "jmp"
            and run_label is not None
            and operand_text.strip() == run_label
            and stepped & pointers
        ):
            cost += LOOP_INDEX  # the DPU's loop keeps an index besides its pointer
        if counted is None:
            cost += instruction_cost(mnemonic, operand_text)
        else:
            prologue, static = counted
            adds = [i for i, text in enumerate(prologue) if text.endswith(f", {COUNTER}")]
            if adds and fold_into is None and not published:
                fold_into = len(out) + adds[0]
            out.extend(prologue)
            cost += static
        _track_byte_registers(mnemonic, operand_text, byte_registers)
        compares = _base_and_width(mnemonic)[0] in ("cmp", "test")
        if mnemonic.startswith("j") and mnemonic != "jmp" and compared:
            cost -= 1  # the DPU compares and branches in one instruction
        compared = compares
        leaves = (
            mnemonic.startswith("call")
            or mnemonic.startswith("ret")
            or (mnemonic.startswith("jmp") and not _is_local(operand_text.strip()))
        )
        if leaves and _callee(operand_text) in INLINE_PRIMITIVES and names_argument:
            cost -= 1  # the DPU's acquire/release names the atomic bit itself
        if leaves and _callee(operand_text) in DMA_CALLS:
            # ldma/sdma: its size is an immediate, file and line are the emulator's own
            cost -= sum(constant_arguments.get(f, 0) for f in DMA_EXTRA_ARGUMENTS)
        moved = IMMEDIATE_MOVE.match(f"{mnemonic} {operand_text}")
        for family in DMA_EXTRA_ARGUMENTS:
            if moved and register_family(moved.group(1)) == family:
                constant_arguments[family] = instruction_cost(mnemonic, operand_text)
            elif leaves or _writes(operand_text, family):
                constant_arguments.pop(family, None)
        if ARGUMENT_SETUP.match(f"{mnemonic} {operand_text}"):
            names_argument = True
        elif leaves or _writes(operand_text, "rdi"):
            names_argument = False
        if leaves:
            # Publish the count for the runtime (calls into it, the end of main).
            close_run()
            if _callee(operand_text) in BYTE_LOOPS:
                # The C library's memcpy, memmove, memset are loops on a DPU: about one
                # instruction per byte, and the byte count is the third argument (rdx).
                out.append(f"\tleaq\t({COUNTER},%rdx), {COUNTER}")
            out.append(f"\tmovq\t{COUNTER}, {PUBLISHED}(%rip)")
            out.append(line)
            continue
        out.append(line)
        if mnemonic.startswith("j") or mnemonic in ("ud2", "hlt"):
            close_run()
    close_run()
    marker = (
        '\t.section\t.rodata.pyupmem_counted,"aG",@progbits,__pyupmem_cost_counted,comdat\n'
        "\t.weak\t__pyupmem_cost_counted\n__pyupmem_cost_counted:\n\t.byte\t1\n\t.previous\n"
    )
    return "\n".join(out) + "\n" + (marker if runs else ""), runs


def _input_index(args: list[str]) -> int | None:
    """Where the assembly source is among the assembler's arguments (None: stdin)."""
    value_options = {"-o", "-I", "--defsym", "-MD", "--debug-prefix-map"}
    skip = False
    found = None
    for index, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in value_options:
            skip = True
            continue
        if arg == "-" or not arg.startswith("-"):
            found = index
    return found


def main(args: list[str]) -> int:
    index = _input_index(args)
    if index is None or args[index] == "-":
        source = sys.stdin.read()
    else:
        with open(args[index]) as file:
            source = file.read()
    instrumented, _ = instrument(source)
    fd, path = tempfile.mkstemp(suffix=".s", prefix="pyupmem-cost-")
    try:
        with os.fdopen(fd, "w") as file:
            file.write(instrumented)
        if index is None:
            args = [*args, path]
        else:
            args = [*args[:index], path, *args[index + 1 :]]
        return subprocess.call([os.environ.get("PYUPMEM_REAL_AS", "as"), *args])
    finally:
        os.unlink(path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
