/* imports.S: the DPU program's side of the calls into the emulator (runtime/imports.def).
 * Assembled as x32 (32-bit pointers, x86-64 instructions) and linked into every DPU
 * program; the worker fills __dpurt_import_table with the emulator's 64-bit functions. */

/* .dpurt_data: the emulator's own words in the program's address space, outside WRAM. */
    .section .dpurt_data, "aw", @progbits
    .balign 8
    .globl __dpurt_import_table
__dpurt_import_table:
#define RUNTIME(name) .quad 0;
#define RUNTIME_AS(name, function) .quad 0;
#define LEAF(name) .quad 0;
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
