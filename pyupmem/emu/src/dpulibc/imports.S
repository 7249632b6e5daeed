/* imports.S: the DPU program's side of the calls into the emulator (runtime/imports.def).
 * Assembled as x32 (32-bit pointers, x86-64 instructions) and linked into every DPU
 * program; the worker fills __dpurt_import_table with the emulator's 64-bit functions. */

/* .dpurt_data: the emulator's own words in the program's address space, outside WRAM. */
    .section .dpurt_data, "aw", @progbits
    .balign 8
    .globl __dpurt_import_table
__dpurt_import_table:
#define RUNTIME(name) .Lslot_##name: .quad 0;
#define RUNTIME_AS(name, function) .Lslot_##name: .quad 0;
#define LEAF(name) .Lslot_##name: .quad 0;
#include "../runtime/imports.def"
#undef RUNTIME
#undef RUNTIME_AS
#undef LEAF
/* The running tasklet's runtime stack: the scheduler sets it at each switch. */
    .globl __dpurt_runtime_stack
__dpurt_runtime_stack:
    .quad 0
/* The running tasklet's DPU instruction count, published by cost-counted code before each
 * call and return (toolchain/dpu_cost_as.py). */
    .globl __dpurt_instructions
__dpurt_instructions:
    .quad 0

    .section .dpurt_stubs, "ax", @progbits
/* A RUNTIME function: run it on the tasklet's runtime stack. r11 holds its index; r10 and
 * r11 are free at a call (neither an argument nor callee-saved). The DPU stack pointer is
 * kept on the runtime stack (twice: the call then finds it 16-byte aligned). */
    .type __dpurt_enter_runtime, @function
__dpurt_enter_runtime:
    movq %rsp, %r10
    movq __dpurt_runtime_stack, %rsp
    pushq %r10
    pushq %r10
    call *__dpurt_import_table(, %r11, 8)
    movq (%rsp), %rsp
    ret
    .size __dpurt_enter_runtime, .-__dpurt_enter_runtime

/* __dpurt_direct_mram_N: the DMA of a direct MRAM access, called by code that the counting
 * assembler put in front of the access (toolchain/dpu_cost_as.py), where every register and
 * the flags are live: they are all kept. Only the return address and two words go on the
 * DPU stack; the rest on the runtime stack. */
#define DIRECT_MRAM(kind)                                                                       \
    .globl __dpurt_direct_mram_##kind;                                                         \
    .type __dpurt_direct_mram_##kind, @function;                                               \
__dpurt_direct_mram_##kind:                                                                     \
    pushfq;                                                                                    \
    pushq %r11;                                                                                \
    movl $kind, %r11d;                                                                         \
    jmp __dpurt_direct_mram_common;                                                            \
    .size __dpurt_direct_mram_##kind, .-__dpurt_direct_mram_##kind;
DIRECT_MRAM(1)
DIRECT_MRAM(2)
DIRECT_MRAM(3)

    .type __dpurt_direct_mram_common, @function
__dpurt_direct_mram_common:
    pushq %r10
    movq %rsp, %r10
    movq __dpurt_runtime_stack, %rsp
    pushq %r10
    pushq %rax
    pushq %rcx
    pushq %rdx
    pushq %rsi
    pushq %rdi
    pushq %r8
    pushq %r9
    subq $272, %rsp
    movdqu %xmm0, 0(%rsp)
    movdqu %xmm1, 16(%rsp)
    movdqu %xmm2, 32(%rsp)
    movdqu %xmm3, 48(%rsp)
    movdqu %xmm4, 64(%rsp)
    movdqu %xmm5, 80(%rsp)
    movdqu %xmm6, 96(%rsp)
    movdqu %xmm7, 112(%rsp)
    movdqu %xmm8, 128(%rsp)
    movdqu %xmm9, 144(%rsp)
    movdqu %xmm10, 160(%rsp)
    movdqu %xmm11, 176(%rsp)
    movdqu %xmm12, 192(%rsp)
    movdqu %xmm13, 208(%rsp)
    movdqu %xmm14, 224(%rsp)
    movdqu %xmm15, 240(%rsp)
    movl %r11d, %edi
    call *.Lslot___dpurt_direct_mram
    movdqu 0(%rsp), %xmm0
    movdqu 16(%rsp), %xmm1
    movdqu 32(%rsp), %xmm2
    movdqu 48(%rsp), %xmm3
    movdqu 64(%rsp), %xmm4
    movdqu 80(%rsp), %xmm5
    movdqu 96(%rsp), %xmm6
    movdqu 112(%rsp), %xmm7
    movdqu 128(%rsp), %xmm8
    movdqu 144(%rsp), %xmm9
    movdqu 160(%rsp), %xmm10
    movdqu 176(%rsp), %xmm11
    movdqu 192(%rsp), %xmm12
    movdqu 208(%rsp), %xmm13
    movdqu 224(%rsp), %xmm14
    movdqu 240(%rsp), %xmm15
    addq $272, %rsp
    popq %r9
    popq %r8
    popq %rdi
    popq %rsi
    popq %rdx
    popq %rcx
    popq %rax
    popq %rsp
    popq %r10
    popq %r11
    popfq
    ret
    .size __dpurt_direct_mram_common, .-__dpurt_direct_mram_common

#define STUB_RUNTIME(name, index)                                                               \
    .globl name;                                                                               \
    .type name, @function;                                                                     \
name:                                                                                          \
    movl $index, %r11d;                                                                        \
    jmp __dpurt_enter_runtime;                                                                 \
    .size name, .-name;
#define STUB_LEAF(name, index)                                                                  \
    .globl name;                                                                               \
    .type name, @function;                                                                     \
name:                                                                                          \
    jmp *__dpurt_import_table + 8 * index;                                                     \
    .size name, .-name;
#define RUNTIME(name) STUB_RUNTIME(name, __COUNTER__)
#define RUNTIME_AS(name, function) STUB_RUNTIME(name, __COUNTER__)
#define LEAF(name) STUB_LEAF(name, __COUNTER__)
#include "../runtime/imports.def"

    .section .note.GNU-stack, "", @progbits
