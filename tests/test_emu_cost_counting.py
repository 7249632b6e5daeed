"""The counting assembler (pyupmem/emu/toolchain/dpu_cost_as.py): the DPU cost of x86-64
instructions, and where the count is added and published in gcc's assembly."""

import shutil
import subprocess

import numpy as np
import pytest
from emu_support import PROGRAMS, toolchain_module

import pyupmem as pim

cost_as = toolchain_module("dpu_cost_as")


@pytest.mark.parametrize(
    "instruction, cost",
    [
        ("addl %eax, %edx", 1),  # 32-bit arithmetic
        ("addq %rax, %rdx", 2),  # 64-bit: a register pair with carry
        ("addq $8, %rdi", 2),
        ("leaq 8(%rdi), %rdi", 1),  # address arithmetic: 32-bit pointers on a DPU
        ("cmpl %esi, %edi", 1),  # a 32-bit (or pointer) compare
        ("cmpq %rsi, %rdi", 2),  # a 64-bit compare: sub and subc (which takes the branch)
        ("testq %rax, %rax", 1),  # a 64-bit zero test: one `or` of the halves
        ("movl (%rdi), %eax", 1),  # a load
        ("movl %eax, 4(%rdi)", 1),  # a store
        ("movl (%rdi,%rcx,4), %eax", 2),  # indexed: the address takes one more
        ("addl %eax, (%rdi)", 3),  # read-modify-write
        ("imull %esi, %eax", 30),  # 32-bit multiply: 8x8 steps
        ("imull $10, %eax, %eax", 3),  # by a constant: shifts and adds
        ("imulq %rsi, %rax", 130),
        ("idivl %ecx", 25),
        ("divq %rcx", 245),
        ("addss %xmm1, %xmm0", 65),  # software float
        ("mulsd %xmm1, %xmm0", 654),  # software double
        ("jne .L3", 1),
        ("call foo", 1),
        ("nop", 1),  # __builtin_nop_(): a DPU instruction
        ("endbr64", 0),
    ],
)
def test_instruction_costs(instruction, cost):
    mnemonic, _, operands = instruction.partition(" ")
    assert cost_as.instruction_cost(mnemonic, operands) == cost


ASSEMBLY = """\
\t.text
\t.globl\tf
f:
\tmovl\t(%rdi), %eax
\taddl\t%esi, %eax
\tcmpl\t$3, %eax
\tjne\t.L2
\tcall\tg
.L2:
\tmovq\t%rax, %rdx
\tjmp\tmemcpy
\t.section\t.rodata
\t.long\t1
"""


def test_each_run_adds_its_cost_and_the_count_is_published_before_calls():
    instrumented, runs = cost_as.instrument(ASSEMBLY)
    lines = [line.strip() for line in instrumented.splitlines()]
    # First run: load, add, compare-and-branch (one DPU instruction) = 3.
    assert lines[lines.index("f:") + 1] == "leaq\t3(%r15), %r15"
    # The call after the branch: its own run, published before the call.
    call = lines.index("call\tg")
    assert lines[call - 2 : call] == [
        "leaq\t1(%r15), %r15",
        "movq\t%r15, __dpurt_instructions(%rip)",
    ]
    # A tail call to memcpy also adds one instruction per byte copied (rdx).
    jump = lines.index("jmp\tmemcpy")
    assert lines[jump - 2 : jump] == [
        "leaq\t(%r15,%rdx), %r15",
        "movq\t%r15, __dpurt_instructions(%rip)",
    ]
    assert runs == 3
    # Data sections are left alone; the object is marked as counting.
    assert lines[lines.index(".long\t1") - 1] == ".section\t.rodata"
    assert "__pyupmem_cost_counted:" in lines


def test_assembly_without_code_is_not_marked():
    instrumented, runs = cost_as.instrument("\t.data\nx:\n\t.long\t1\n")
    assert runs == 0 and "__pyupmem_cost_counted" not in instrumented


def test_debug_information_does_not_change_the_counting(tmp_path):
    """gcc -g adds local labels (.LVL, .LBB ...) that are no branch targets: the runs and
    their costs are those of the same code built without -g."""
    import subprocess

    source = tmp_path / "k.c"
    source.write_text(
        "float f[64]; unsigned u[64];\n"
        "unsigned k(unsigned s) {\n"
        "    for (int i = 0; i < 64; i++) {\n"
        "        f[i] = f[i] * 2.5f + 1;\n"
        "        if (u[i] > 3) s ^= u[i] * 7;\n"
        "    }\n"
        "    return s;\n"
        "}\n"
    )

    def leas(*flags: str) -> list[str]:
        assembly = subprocess.run(
            ["gcc", "-O2", "-S", "-ffixed-r15", "-o", "-", *flags, str(source)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        instrumented, _ = cost_as.instrument(assembly)
        return [line.strip() for line in instrumented.splitlines() if "(%r15), %r15" in line]

    assert leas("-g") == leas()
    assert len(leas()) >= 2


def _loop_cost(body: str) -> int:
    """The cost counted for one round of a one-run loop at .L3 with `body` inside."""
    assembly = f"\t.text\nf:\n.L3:\n{body}\tjne\t.L3\n\tret\n"
    lines = [line.strip() for line in cost_as.instrument(assembly)[0].splitlines()]
    return int(lines[lines.index(".L3:") + 1].split("(")[0].split("\t")[1])


@pytest.mark.parametrize(
    "body, dpu",
    [
        # x[i] += s through a pointer: gcc's 5, the DPU's 6 (its loop keeps an index)
        ("\taddl\t%ecx, (%eax)\n\taddl\t$4, %eax\n\tcmpl\t%eax, %edx\n", 3 + 1 + 1 + 1),
        # an int64 sum through a pointer (RED): ld, add, addc, the step, the branch, the index
        ("\taddq\t(%eax), %r14\n\taddl\t$8, %eax\n\tcmpl\t%r13d, %eax\n", 3 + 1 + 1 + 1),
        # an array named by its symbol, the offset stepped: the DPU's ld takes the same
        # offset register and symbol, no index besides it
        ("\tmovl\tblock(%eax), %edx\n\taddl\t%edx, %ecx\n\taddl\t$4, %eax\n"
         "\tcmpl\t%eax, %esi\n", 1 + 1 + 1 + 1),
        # indexed addressing already pays the DPU's address computation (lsl_add)
        ("\taddl\t(%rdi,%rax,4), %ecx\n\taddl\t$1, %eax\n\tcmpl\t%eax, %esi\n", 3 + 1 + 1),
    ],
)
def test_a_loop_through_a_pointer_pays_the_dpu_index(body, dpu):
    assert _loop_cost(body) == dpu


def test_a_multiply_with_a_memory_operand_counts_its_load():
    prologue, static = cost_as.multiply_cost("x_block(%eax), %edx", set())
    assert static == 1 and any("leaq\t9(%r15," in line for line in prologue)
    assert cost_as.multiply_cost("%ecx, %edx", set())[1] == 0


def test_a_32_bit_division_is_counted_at_run_time_and_a_64_bit_one_is_flat():
    prologue, static = cost_as.division_cost("divl", "%r8d")
    assert static == 0 and prologue[-3].startswith("\tleaq\t9(%r15,")  # 8 + 1 per step
    signed, _ = cost_as.division_cost("idivl", "4(%rsp)")
    assert any(line.startswith("\tleaq\t16(%r15,") for line in signed)  # 7 more
    assert cost_as.division_cost("divq", "%rcx") is None
    assert cost_as.instruction_cost("divq", "%rcx") == 245


def test_a_dma_call_counts_as_the_dpus_one_ldma():
    """mram_read is one ldma on a DPU, its size an immediate: the constants the emulator's
    call moves into the size, file and line arguments are not DPU instructions."""
    assembly = (
        "\t.text\nf:\n\tmovl\t$buffer, %esi\n\tmovl\t$64, %edx\n\tmovl\t$.LC0, %ecx\n"
        "\tmovl\t$12, %r8d\n\tcall\t__dpurt_mram_read\n\tret\n"
    )
    lines = [line.strip() for line in cost_as.instrument(assembly)[0].splitlines()]
    assert lines[lines.index("f:") + 1] == "leaq\t2(%r15), %r15"  # the WRAM address, the ldma
    other = assembly.replace("__dpurt_mram_read", "g")
    lines = [line.strip() for line in cost_as.instrument(other)[0].splitlines()]
    assert lines[lines.index("f:") + 1] == "leaq\t5(%r15), %r15"  # any other call pays all


def test_a_run_with_a_multiply_adds_its_own_cost_in_the_multiplys_lea():
    """The run's cost goes into the displacement of the multiply's run-time lea instead of a
    lea of its own: one add fewer on the counter's dependency chain in a multiply loop, the
    same count. After a direct MRAM access has published the count, the run keeps its own
    lea at its start, so the published count includes what came before; so does a run whose
    multiply is an 8-bit product (one instruction, no run-time lea)."""
    loop = (
        "\t.text\nf:\n.L2:\n\tmovl\t(%rdi), %eax\n\timull\t%esi, %eax\n\taddl\t%eax, %edx\n"
        "\taddl\t$4, %edi\n\tcmpl\t%ecx, %edi\n\tjne\t.L2\n\tret\n"
    )
    lines = [line.strip() for line in cost_as.instrument(loop)[0].splitlines()]
    counter_adds = [line for line in lines if line.endswith("%r15") and "leaq" in line]
    # load 1, multiply 8 + 1 + a step per bit, add 1, step 1, compare and branch 1, index 1
    assert counter_adds[0] == "leaq\t14(%r15,%rcx,1), %r15"
    assert lines.index(counter_adds[0]) > lines.index(".L2:") + 1  # not at the run's start
    direct = loop.replace("\tmovl\t(%rdi), %eax\n", "\tmovl\t%gs:(%rdi), %eax\n")
    lines = [line.strip() for line in cost_as.instrument(direct)[0].splitlines()]
    assert lines[lines.index(".L2:") + 1].startswith("leaq\t")  # its own lea, first
    assert any(line.startswith("leaq\t9(%r15,") for line in lines)  # the multiply's as it was
    two_bytes = "\tmovzbl\t(%rdi), %eax\n\tmovzbl\t1(%rdi), %esi\n"
    bytes_only = loop.replace("\tmovl\t(%rdi), %eax\n", two_bytes)
    lines = [line.strip() for line in cost_as.instrument(bytes_only)[0].splitlines()]
    assert lines[lines.index(".L2:") + 1] == "leaq\t7(%r15), %r15"  # an 8-bit product: no lea


def _dead_after(*instructions: str, exclude: frozenset[str] = frozenset()) -> tuple[str, ...]:
    return cost_as.dead_registers(((text, False) for text in instructions), set(exclude))


def test_a_register_written_whole_before_any_read_is_dead():
    assert "rdx" in _dead_after("movl %edi, %edx", "addl %edx, %ebx")
    assert "rax" in _dead_after("leal 16384(%rsi), %eax")
    assert "rcx" in _dead_after("xorl %ecx, %ecx", "addl %ecx, %eax")  # the zeroing idiom
    assert "r9" in _dead_after("movq %xmm0, %r9")
    assert "rsi" in _dead_after("cvttsd2si %xmm1, %esi")


@pytest.mark.parametrize(
    "instructions, live",
    [
        (("addl %edx, %ebx", "movl %edi, %edx"), "rdx"),  # read first
        (("movl %edx, %edx",), "rdx"),  # the write reads it
        (("leal (%rdx,%rdx), %edx",), "rdx"),
        (("movb $1, %dl",), "rdx"),  # a partial write keeps the rest
        (("cmovl %esi, %edx",), "rdx"),  # may keep the old value
        (("movl %eax, 4(%rdx)",), "rdx"),  # an address
        (("jne .L3", "movl %edi, %edx"), "rdx"),  # may be live where the jump goes
        (("call g", "movl %edi, %edx"), "rdx"),  # an argument
        (("ret",), "rax"),  # the return value
        (("cltd", "movl %edi, %eax"), "rax"),
        (("divl %ecx", "movl %edi, %edx"), "rdx"),
        (("imull %ecx", "movl %edi, %edx"), "rdx"),
        (("rep movsb", "movl %edi, %ecx"), "rcx"),  # an unknown instruction ends the scan
        (("rep; movsb", "movl %edi, %ecx"), "rcx"),
        (("cmpxchgl %ecx, (%rdi)", "movl %esi, %eax"), "rax"),
        ((".byte\t0x48, 0x89, 0xd0", "movl %edi, %edx"), "rdx"),  # an encoded instruction
    ],
)
def test_a_register_that_may_be_read_is_not_dead(instructions, live):
    assert live not in _dead_after(*instructions)


def test_a_branch_target_ends_the_scan():
    following = iter([("addl $1, %ecx", False), ("", True), ("movl %edi, %edx", False)])
    assert cost_as.dead_registers(following, set()) == ()


def test_a_multiply_takes_a_dead_scratch_register_and_saves_none():
    """Where gcc's code writes a register afresh after the multiply, the counting code uses
    it and saves nothing in the red zone; where none is, it saves one there."""
    loop = (
        "\t.text\nf:\n.L2:\n\tmovl\t(%rdi), %esi\n\timull\t%esi, %eax\n\tmovl\t%eax, %edx\n"
        "\taddl\t%edx, %ebx\n\taddl\t$4, %edi\n\tcmpl\t%ecx, %edi\n\tjne\t.L2\n\tret\n"
    )
    lines = [line.strip() for line in cost_as.instrument(loop)[0].splitlines()]
    assert not any("(%rsp)" in line for line in lines)
    assert "cmoval\t%eax, %edx" in lines  # the smaller operand, in rdx
    spilled = loop.replace("\tmovl\t%eax, %edx\n\taddl\t%edx, %ebx\n", "\taddl\t%eax, %ebx\n")
    lines = [line.strip() for line in cost_as.instrument(spilled)[0].splitlines()]
    assert "movq\t%rcx, -8(%rsp)" in lines and "movq\t-8(%rsp), %rcx" in lines


@pytest.mark.parametrize("flags", [("-O1",), ("-O2",), ("-O3",), ("-O2", "-funroll-loops")])
def test_counted_multiplies_and_divisions_give_the_native_results(tmp_path, flags):
    """The counting code's scratch registers never hold a live value of the program: many
    live accumulators, signed and unsigned products and quotients, arguments passed on
    untouched around a product, a return value kept past one, at several optimisation
    levels, give what the same functions compiled natively give."""
    source = PROGRAMS / "multiply_mix.c"
    native = tmp_path / "native"
    cc = shutil.which("gcc") or shutil.which("cc")
    subprocess.run([cc, "-std=c11", *flags, "-DNATIVE", "-o", native, source], check=True)
    expected = [int(word) for word in subprocess.run(
        [native], check=True, capture_output=True, text=True).stdout.split()]
    program = pim.build_program(source, nr_tasklets=1, backend="emulator",
                                opt_level=flags[0][2:], extra_args=flags[1:])
    with pim.DpuSet(1, backend="emulator") as dpus:
        dpus.load(program)
        dpus.launch()
        output = dpus.read("output", np.uint32)
    assert output.tolist() == expected
