/* sem.h: counting semaphores between tasklets. */
#ifndef _DPUSYSCORE_SEM_H_
#define _DPUSYSCORE_SEM_H_

#include <stdint.h>

typedef struct sem_t {
    int32_t count;
    uint32_t initial;
} sem_t;

#define SEMAPHORE_INIT(_name, _count) sem_t _name = {(_count), (_count)}
/** Waits until the count is positive, then decrements it. */
void sem_take(sem_t *sem);
/** Increments the count, waking one waiter. */
void sem_give(sem_t *sem);

#endif
