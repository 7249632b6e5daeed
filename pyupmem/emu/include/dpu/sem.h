/* sem.h: counting semaphores between tasklets, with the SDK's four-byte layout, so a
 * program may also build one at run time by writing its fields. */
#ifndef _DPUSYSCORE_SEM_H_
#define _DPUSYSCORE_SEM_H_

#include <atomic_bit.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

typedef struct sem_t {
    uint8_t wait_queue;    /* 0xff: nobody waits (the emulator keeps its own queue) */
    uint8_t count;         /* tokens available */
    uint8_t initial_count; /* tokens at start */
    uint8_t lock;          /* the atomic bit guarding it (unused by the emulator) */
} sem_t;

/* Ends with its own `;`, as the SDK's does. */
#define SEMAPHORE_INIT(_name, _count)                                                              \
    ATOMIC_BIT_INIT(__sem_##_name);                                                                \
    sem_t _name = {0xff, (_count), (_count), 0};

/** Waits until the count is positive, then decrements it. */
void sem_take(sem_t *sem);
/** Increments the count, waking one waiter. */
void sem_give(sem_t *sem);

#ifdef __cplusplus
}
#endif

#endif
