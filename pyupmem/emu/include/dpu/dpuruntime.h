/* dpuruntime.h: the SDK runtime's internal definitions, for programs and libraries that
 * include them: branch hints (likely, unlikely, unreachable), bit counts
 * (count_leading_zeros, count_population), the names of the runtime's tables, and the
 * thread-control macros over built_ins.h.
 *
 * On the emulator, the thread-control macros (__acquire, __release, __resume, __stop) stop
 * the compilation naming the intrinsic, as built_ins.h does; the runtime tables
 * (__HEAP_POINTER, __SP_TABLE__ ...) are declared with the SDK's types but not defined, so
 * a program that reads them does not link: use mem_alloc and check_stack instead. */
#ifndef DPUSYSCORE_DPURUNTIME_H
#define DPUSYSCORE_DPURUNTIME_H

#include <built_ins.h>
#include <dpuconst.h>
#include <dpufault.h>
#include <macro_utils.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define __INITIAL_HEAP_POINTER __sys_heap_pointer_reset
#define __HEAP_POINTER __sys_heap_pointer
#define __WAIT_QUEUE_TABLE __sys_wq_table
#define __SP_TABLE__ __sys_thread_stack_table_ptr
#define __STDOUT_BUFFER_STATE __stdout_buffer_state

/* A tasklet's stack, as the runtime's boot code reads it (two 32-bit words). */
typedef struct {
    uint32_t stack_size;
    uint32_t stack_ptr;
} thread_stack_t;

extern unsigned int __INITIAL_HEAP_POINTER;
extern volatile unsigned int __HEAP_POINTER;
extern unsigned char __WAIT_QUEUE_TABLE[];
extern thread_stack_t __SP_TABLE__[];

#define __acquire(base, off) __builtin_acquire_rici(base, off, "nz", __AT_THIS_INSTRUCTION)
#define __release(base, off, at) __builtin_release_rici(base, off, "nz", at)
#define __resume(base, off) __builtin_resume_rici(base, off, "nz", __AT_THIS_INSTRUCTION)
#define __stop() __builtin_stop_ci("false", "0")
#define __stop_at(label) __builtin_stop_ci("true", label)

#define likely(x) __builtin_expect((x), 1)
#define unlikely(x) __builtin_expect((x), 0)
#define unreachable() __builtin_unreachable()

#define count_leading_zeros(x) __builtin_clz(x)
#define count_population(x) __builtin_popcount(x)

#define __EMPTY_WAIT_QUEUE 0xFF

#define __AT_THIS_INSTRUCTION ".+0"
#define __AT_NEXT_INSTRUCTION ".+1"

/* Assembly hooks of the SDK's profiler: empty on the emulator, which has no DPU assembly. */
#define __ADD_PROFILING_ENTRY__ "\n"
#define __CONFIG_PERFCOUNTER_ENTRY__ "\n"
#define __SAVE_PERFCOUNTER_ENTRY__ "\n"

#ifdef __cplusplus
}
#endif

#endif /* DPUSYSCORE_DPURUNTIME_H */
