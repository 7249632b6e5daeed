/* barrier.h: tasklet barriers with the SDK's four-byte layout, so a program may also
 * build one at run time by writing its fields (wait_queue = 0xff, count =
 * initial_count = n, lock = an atomic bit) and pass it to barrier_wait. A barrier
 * re-arms itself once `initial_count` tasklets have arrived. */
#ifndef _DPUSYSCORE_BARRIER_H_
#define _DPUSYSCORE_BARRIER_H_

#include <atomic_bit.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

typedef struct barrier_t {
    uint8_t wait_queue;    /* 0xff: nobody waits (the emulator keeps its own queue) */
    uint8_t count;         /* tasklets still to arrive */
    uint8_t initial_count; /* tasklets the barrier waits for */
    uint8_t lock;          /* the atomic bit guarding it (unused by the emulator) */
} barrier_t;

/* Ends with its own `;`, as the SDK's does. */
#define BARRIER_INIT(_name, _count)                                                                \
    ATOMIC_BIT_INIT(__barrier_##_name);                                                            \
    barrier_t _name = {0xff, (_count), (_count), 0};

void barrier_wait(barrier_t *barrier);

#ifdef __cplusplus
}
#endif

#endif
