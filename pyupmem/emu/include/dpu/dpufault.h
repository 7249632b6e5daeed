/* dpufault.h: the DPU runtime's fault codes (the operand of a `fault` instruction), with
 * the SDK's names and values. On the emulator a fault is reported by its message; the
 * codes are there for programs that name them. */
#ifndef DPUSYSCORE_DPUFAULT_H
#define DPUSYSCORE_DPUFAULT_H

#define __FAULT_ALLOC_HEAP_FULL__ 1
#define __FAULT_DIVISION_BY_ZERO__ 2
#define __FAULT_ASSERT_FAILED__ 3
/* What the compiler emits for a trap (halt()). */
#define __FAULT_HALT__ 4
#define __FAULT_PRINTF_OVERFLOW__ 5
#define __FAULT_ALREADY_PROFILING__ 6
#define __FAULT_NOT_PROFILING__ 7

#endif /* DPUSYSCORE_DPUFAULT_H */
