/* runtime.h: the DPU runtime's internal interface (libdpurt.so). A worker process
 * is one DPU; its tasklets are coroutines scheduled cooperatively on one thread,
 * switching only where the hardware would make a tasklet wait. */
#ifndef PYUPMEM_RUNTIME_H
#define PYUPMEM_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control.h"

struct dpurt_state {
    struct emu_slot *slot;       /* this DPU's control slot */
    uint32_t nr_tasklets;
    uint32_t wram_used;          /* bytes of WRAM taken by the program's variables */
    unsigned current;            /* running tasklet */
    uint64_t progress;           /* bumped whenever a waiting tasklet may proceed */
};

extern struct dpurt_state __dpurt;

/* tasklets.c */
void __dpurt_tasklets_init(void);
void __dpurt_run_launch(void);
void __dpurt_wait(void);
/* Whether `address` lies in a tasklet's stack guard page (a stack overflow), and whose. */
bool __dpurt_in_stack_guard(const void *address, unsigned *tasklet); /* yield as a waiting tasklet; the caller re-checks its condition */

/* fault.c */
void __dpurt_fault(const char *file, int line, const char *format, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
void __dpurt_install_fault_handlers(void);
void __dpurt_log_append(const char *text, size_t length);
void __dpurt_launch_finished(uint32_t final_state);

/* perfcounter.c: the monotonic clock, in nanoseconds */
uint64_t __dpurt_now_ns(void);

/* memory.c */
void __dpurt_heap_init(void);

#endif
