/* Tasklet context switch for x86-64 (System V): saves the callee-saved registers,
 * MXCSR and the x87 control word on the current stack, stores the stack pointer in
 * *from, and resumes the context whose stack pointer is `to`, reloading its control words
 * only where they differ (ldmxcsr and fldcw are slow, and tasklets rarely change them).
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
    subq $8, %rsp          /* the control words' slot */
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    /* Each word read back at its own store's width: a load that spans several stores
     * cannot be forwarded from them and waits for them to retire. */
    movl (%rsp), %eax
    movzwl 4(%rsp), %edx
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    cmpl (%rsp), %eax
    jne 2f
    cmpw 4(%rsp), %dx
    jne 2f                 /* the same modes (nearly always): no slow reload */
1:
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
2:
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    jmp 1b
    .size __dpurt_switch, .-__dpurt_switch

/* First code of a new tasklet: r12 holds the argument, r13 the entry function. */
    .globl __dpurt_trampoline
    .type __dpurt_trampoline, @function
__dpurt_trampoline:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size __dpurt_trampoline, .-__dpurt_trampoline

/* void __dpurt_call_dpu(uint64_t entry, uint64_t stack_top, uint64_t *runtime_top,
 *                       uint64_t *published_top)
 * Runs the program's main on its DPU stack. The runtime's frames for this tasklet go on
 * below this frame: its 16-aligned stack pointer is stored in both words first. */
    .globl __dpurt_call_dpu
    .type __dpurt_call_dpu, @function
__dpurt_call_dpu:
    pushq %rbp
    movq %rsp, %rbp
    andq $-16, %rsp
    movq %rsp, (%rdx)
    movq %rsp, (%rcx)
    movq %rsi, %rsp
    callq *%rdi
    movq %rbp, %rsp
    popq %rbp
    ret
    .size __dpurt_call_dpu, .-__dpurt_call_dpu

/* void __dpurt_resume_context(const greg_t *registers, const void *fpu)
 * Every register as <sys/ucontext.h> orders them (REG_R8 = 0 ... REG_RIP = 16, REG_EFL =
 * 17), SSE from an fxsave image. rsp, rip, the flags and rdi go through words of this
 * file, which need no register to address, so that all registers are the tasklet's when
 * it jumps back. */
    .globl __dpurt_resume_context
    .type __dpurt_resume_context, @function
__dpurt_resume_context:
    fxrstor (%rsi)
    movq 15*8(%rdi), %rax
    movq %rax, resume_rsp(%rip)
    movq 16*8(%rdi), %rax
    movq %rax, resume_rip(%rip)
    movq 17*8(%rdi), %rax
    movq %rax, resume_flags(%rip)
    movq 8*8(%rdi), %rax
    movq %rax, resume_rdi(%rip)
    movq 0*8(%rdi), %r8
    movq 1*8(%rdi), %r9
    movq 2*8(%rdi), %r10
    movq 3*8(%rdi), %r11
    movq 4*8(%rdi), %r12
    movq 5*8(%rdi), %r13
    movq 6*8(%rdi), %r14
    movq 7*8(%rdi), %r15
    movq 9*8(%rdi), %rsi
    movq 10*8(%rdi), %rbp
    movq 11*8(%rdi), %rbx
    movq 12*8(%rdi), %rdx
    movq 13*8(%rdi), %rax
    movq 14*8(%rdi), %rcx
    movq resume_rdi(%rip), %rdi
    leaq resume_flags(%rip), %rsp
    popfq
    movq resume_rsp(%rip), %rsp
    jmp *resume_rip(%rip)
    .size __dpurt_resume_context, .-__dpurt_resume_context

    .bss
    .balign 8
resume_rsp: .quad 0
resume_rip: .quad 0
resume_flags: .quad 0
resume_rdi: .quad 0

    .section .note.GNU-stack,"",@progbits
