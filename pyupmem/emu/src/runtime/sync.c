/* sync.c: barriers, mutexes, semaphores and handshakes. A waiting tasklet blocks on the
 * primitive's address (tasklets.c); whoever releases it wakes it, and it resumes no
 * earlier, in modelled time, than its releaser. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mutex.h>
#include <sem.h>

#include "runtime.h"

/* DPU instructions of the SDK's runtime code for each primitive (acquire/release of the
 * guarding atomic bit, the count, the wait queue), charged to the caller. */
#define BARRIER_COST 15
#define MUTEX_COST 2
#define SEMAPHORE_COST 10
#define HANDSHAKE_COST 10

/* Mutexes that are taken. The hardware keeps their state in atomic bits, apart from
 * WRAM, so a mutex's own byte and its neighbours are never written. */
#define MAX_HELD_MUTEXES 256u
static const void *held_mutexes[MAX_HELD_MUTEXES];
static unsigned nr_held_mutexes;
static uint32_t handshake_waiter[EMU_MAX_TASKLETS]; /* waiter id + 1 per notifier, 0 if none */

void __dpurt_sync_reset(void)
{
    nr_held_mutexes = 0;
    for (unsigned id = 0; id < EMU_MAX_TASKLETS; id++)
        handshake_waiter[id] = 0;
}

void barrier_wait(barrier_t *barrier)
{
    __dpurt_charge(BARRIER_COST);
    unsigned expected = barrier->initial_count;
    if (expected == 0 || expected > __dpurt.nr_tasklets || barrier->count == 0 ||
        barrier->count > expected)
        __dpurt_fault(NULL, 0,
                      "barrier_wait: the barrier (count %u, initial_count %u) does not fit a "
                      "program of %u tasklets",
                      barrier->count, expected, __dpurt.nr_tasklets);
    if (--barrier->count == 0) {
        barrier->count = barrier->initial_count; /* re-arm before anyone resumes */
        __dpurt_release_together(barrier);
        return;
    }
    __dpurt_block(barrier, "barrier_wait");
}

static int find_held(const void *mutex)
{
    for (unsigned i = 0; i < nr_held_mutexes; i++)
        if (held_mutexes[i] == mutex)
            return (int)i;
    return -1;
}

bool mutex_trylock(mutex_id_t mutex)
{
    __dpurt_charge(MUTEX_COST);
    if (find_held(mutex) >= 0)
        return false;
    if (nr_held_mutexes == MAX_HELD_MUTEXES)
        __dpurt_fault(NULL, 0, "mutex_lock: more than %u mutexes are held at once", MAX_HELD_MUTEXES);
    held_mutexes[nr_held_mutexes++] = mutex;
    return true;
}

void mutex_lock(mutex_id_t mutex)
{
    while (!mutex_trylock(mutex))
        __dpurt_block(mutex, "mutex_lock");
}

void mutex_unlock(mutex_id_t mutex)
{
    __dpurt_charge(MUTEX_COST);
    int index = find_held(mutex);
    if (index < 0)
        return; /* unlocking a free mutex leaves it free, as releasing a clear bit does */
    held_mutexes[index] = held_mutexes[--nr_held_mutexes];
    __dpurt_wake(mutex);
}

void sem_take(sem_t *sem)
{
    __dpurt_charge(SEMAPHORE_COST);
    while (sem->count == 0)
        __dpurt_block(sem, "sem_take");
    sem->count--;
}

void sem_give(sem_t *sem)
{
    __dpurt_charge(SEMAPHORE_COST);
    sem->count++;
    __dpurt_wake(sem);
}

void handshake_notify(void)
{
    __dpurt_charge(HANDSHAKE_COST);
    unsigned self = __dpurt.current;
    while (handshake_waiter[self] == 0)
        __dpurt_block(&handshake_waiter[self], "handshake_notify");
    handshake_waiter[self] = 0;
    __dpurt_wake(&handshake_waiter[self]);
}

int handshake_wait_for(sysname_t notifier)
{
    __dpurt_charge(HANDSHAKE_COST);
    if (notifier >= __dpurt.nr_tasklets)
        __dpurt_fault(NULL, 0, "handshake_wait_for(%u): the program has only %u tasklets", notifier,
                      __dpurt.nr_tasklets);
    if (handshake_waiter[notifier] != 0)
        return EALREADY;
    uint32_t token = __dpurt.current + 1;
    handshake_waiter[notifier] = token;
    __dpurt_wake(&handshake_waiter[notifier]);
    while (handshake_waiter[notifier] == token)
        __dpurt_block(&handshake_waiter[notifier], "handshake_wait_for");
    return 0;
}
