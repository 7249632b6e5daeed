/* Tasklet context switch for x86-64 (System V): saves the callee-saved registers,
 * MXCSR and the x87 control word on the current stack, stores the stack pointer in
 * *from, and resumes the context whose stack pointer is `to`.
 *   void __dpurt_switch(void **from, void *to);                                    */
    .text
    .globl __dpurt_switch
    .type __dpurt_switch, @function
__dpurt_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size __dpurt_switch, .-__dpurt_switch

/* First code of a new tasklet: r12 holds the argument, r13 the entry function. */
    .globl __dpurt_trampoline
    .type __dpurt_trampoline, @function
__dpurt_trampoline:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size __dpurt_trampoline, .-__dpurt_trampoline

    .section .note.GNU-stack,"",@progbits
