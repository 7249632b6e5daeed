/* sync.c: barriers, mutexes, semaphores and handshakes. A waiting tasklet blocks on the
 * primitive's address (tasklets.c); whoever releases it wakes it, and it resumes no
 * earlier, in modelled time, than its releaser. A mutex is taken in modelled-time order
 * and no earlier than its last release, so critical sections follow one another in
 * modelled time as on the DPU, whose waiters spin on `acquire` meanwhile. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mutex.h>
#include <sem.h>

#include "runtime.h"

/* DPU instructions of the SDK's runtime code for each primitive, charged to the caller.
 * A mutex operation is one inline `acquire` or `release` (mutex.h): the call the program
 * counted for it stands for that instruction, so nothing more is charged. The others take
 * the guarding atomic bit, update the count and the wait queue, and stop or resume
 * (barrier.c, sem.c). */
#define BARRIER_COST 15
#define MUTEX_COST 0
#define SEMAPHORE_COST 10
#define HANDSHAKE_COST 10

/* Mutexes that are taken. The hardware keeps their state in atomic bits, apart from
 * WRAM, so a mutex's own byte and its neighbours are never written. */
#define MAX_HELD_MUTEXES 256u
static const void *held_mutexes[MAX_HELD_MUTEXES];
static unsigned nr_held_mutexes;
/* The modelled cycle of each mutex's last release this launch (open addressing). */
#define RELEASE_SLOTS 512u
static struct {
    const void *mutex;
    uint64_t at;
} releases[RELEASE_SLOTS];
static unsigned nr_releases; /* at most half the slots fill: the probe always ends */

static unsigned release_slot(const void *mutex)
{
    unsigned index = (unsigned)(((uintptr_t)mutex * 0x9e3779b1u) >> 7) % RELEASE_SLOTS;
    while (releases[index].mutex != NULL && releases[index].mutex != mutex)
        index = (index + 1) % RELEASE_SLOTS;
    return index;
}
static uint32_t handshake_waiter[EMU_MAX_TASKLETS]; /* waiter id + 1 per notifier, 0 if none */

void __dpurt_sync_reset(void)
{
    nr_held_mutexes = 0;
    memset(releases, 0, sizeof(releases));
    nr_releases = 0;
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
    __dpurt_block(barrier, "barrier_wait", false);
}

static int find_held(const void *mutex)
{
    for (unsigned i = 0; i < nr_held_mutexes; i++)
        if (held_mutexes[i] == mutex)
            return (int)i;
    return -1;
}

static bool take(mutex_id_t mutex)
{
    if (find_held(mutex) >= 0)
        return false;
    if (nr_held_mutexes == MAX_HELD_MUTEXES)
        __dpurt_fault(NULL, 0, "mutex_lock: more than %u mutexes are held at once", MAX_HELD_MUTEXES);
    held_mutexes[nr_held_mutexes++] = mutex;
    return true;
}

bool mutex_trylock(mutex_id_t mutex)
{
    __dpurt_charge(MUTEX_COST);
    return take(mutex);
}

void mutex_lock(mutex_id_t mutex)
{
    __dpurt_charge(MUTEX_COST);
    __dpurt_turn();
    while (!take(mutex))
        __dpurt_block(mutex, "mutex_lock", true);
    unsigned slot = release_slot(mutex);
    if (releases[slot].mutex == mutex)
        __dpurt_wait_until(releases[slot].at, true); /* spins until the last holder let go */
}

void mutex_unlock(mutex_id_t mutex)
{
    __dpurt_charge(MUTEX_COST);
    int index = find_held(mutex);
    if (index < 0)
        return; /* unlocking a free mutex leaves it free, as releasing a clear bit does */
    held_mutexes[index] = held_mutexes[--nr_held_mutexes];
    unsigned slot = release_slot(mutex);
    if (releases[slot].mutex == NULL && nr_releases < RELEASE_SLOTS / 2) {
        releases[slot].mutex = mutex;
        nr_releases++;
    }
    if (releases[slot].mutex == mutex)
        releases[slot].at = __dpurt_clock();
    __dpurt_wake(mutex);
}

void sem_take(sem_t *sem)
{
    __dpurt_charge(SEMAPHORE_COST);
    while (sem->count == 0)
        __dpurt_block(sem, "sem_take", false);
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
        __dpurt_block(&handshake_waiter[self], "handshake_notify", false);
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
        __dpurt_block(&handshake_waiter[notifier], "handshake_wait_for", false);
    return 0;
}
