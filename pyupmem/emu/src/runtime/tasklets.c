/* tasklets.c: tasklets as coroutines on the worker's single thread, and the
 * synchronisation primitives. A tasklet runs until it must wait (barrier, mutex,
 * semaphore, handshake) or ends, so a launch costs no thread switches and a
 * compute-bound kernel runs at native speed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mutex.h>
#include <sem.h>

#include "runtime.h"

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

/* Host code needs far more stack than a DPU's 1 KiB (printf alone takes several). */
#define TASKLET_STACK_SIZE (256u << 10)

struct tasklet {
    void *sp;
#if !defined(__x86_64__)
    ucontext_t context;
#endif
    char *stack; /* lowest usable byte; a guard page lies below */
    bool finished;
    bool waiting;
    const char *waits_in; /* the primitive a waiting tasklet is blocked in */
};

static struct tasklet tasklets[EMU_MAX_TASKLETS];
static void *scheduler_sp;
#if !defined(__x86_64__)
static ucontext_t scheduler_context;
#endif
static uint32_t handshake_waiter[EMU_MAX_TASKLETS]; /* waiter id + 1 per notifier, 0 if none */

extern int dpu_main(void);
void __dpurt_switch(void **from, void *to);
void __dpurt_trampoline(void);

static void switch_to_scheduler(void)
{
    struct tasklet *self = &tasklets[__dpurt.current];
#if defined(__x86_64__)
    __dpurt_switch(&self->sp, scheduler_sp);
#else
    swapcontext(&self->context, &scheduler_context);
#endif
}

static void switch_to_tasklet(unsigned id)
{
#if defined(__x86_64__)
    __dpurt_switch(&scheduler_sp, tasklets[id].sp);
#else
    swapcontext(&scheduler_context, &tasklets[id].context);
#endif
}

static __attribute__((noreturn)) void tasklet_exit(void)
{
    tasklets[__dpurt.current].finished = true;
    __dpurt.progress++;
    switch_to_scheduler();
    __builtin_unreachable();
}

static void tasklet_entry(void)
{
    dpu_main();
    tasklet_exit();
}

static void reset_context(unsigned id)
{
    struct tasklet *t = &tasklets[id];
    char *top = t->stack + TASKLET_STACK_SIZE;
#if defined(__x86_64__)
    /* The frame __dpurt_switch pops: MXCSR/x87 word, r15..r12, rbx, rbp, return address.
     * After `ret`, rsp is 16-aligned, as the trampoline's call expects. */
    uint64_t *frame = (uint64_t *)top - 8;
    uint32_t control[2];
    __asm__ volatile("stmxcsr %0" : "=m"(control[0]));
    __asm__ volatile("fnstcw %0" : "=m"(control[1]));
    memset(frame, 0, 8 * sizeof(uint64_t));
    memcpy(&frame[0], control, 8);
    frame[3] = (uint64_t)(uintptr_t)tasklet_entry; /* r13 */
    frame[7] = (uint64_t)(uintptr_t)__dpurt_trampoline;
    t->sp = frame;
#else
    getcontext(&t->context);
    t->context.uc_stack.ss_sp = t->stack;
    t->context.uc_stack.ss_size = TASKLET_STACK_SIZE;
    t->context.uc_link = NULL;
    makecontext(&t->context, tasklet_entry, 0);
#endif
    t->finished = false;
    t->waiting = false;
    t->waits_in = NULL;
}

void __dpurt_tasklets_init(void)
{
    long page = sysconf(_SC_PAGESIZE);
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
#ifdef MAP_32BIT
    flags |= MAP_32BIT; /* keep WRAM-like pointers below 4 GiB, as 32-bit DPU code assumes */
#endif
    for (unsigned id = 0; id < __dpurt.nr_tasklets; id++) {
        size_t size = TASKLET_STACK_SIZE + (size_t)page;
        char *block = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
        if (block == MAP_FAILED)
            block = mmap(NULL, size, PROT_READ | PROT_WRITE, flags & ~MAP_32BIT, -1, 0);
        if (block == MAP_FAILED)
            __dpurt_fault(NULL, 0, "cannot allocate the stack of tasklet %u", id);
        mprotect(block, (size_t)page, PROT_NONE); /* overflow faults instead of corrupting */
        tasklets[id].stack = block + page;
    }
}

void __dpurt_wait(void)
{
    tasklets[__dpurt.current].waiting = true;
    switch_to_scheduler();
}

static void wait_in(const char *primitive)
{
    tasklets[__dpurt.current].waits_in = primitive;
    __dpurt_wait();
}

void __dpurt_run_launch(void)
{
    unsigned n = __dpurt.nr_tasklets;
    for (unsigned id = 0; id < n; id++)
        reset_context(id);
    memset(handshake_waiter, 0, sizeof(handshake_waiter));
    unsigned live = n;
    while (live > 0) {
        uint64_t progress_before = __dpurt.progress;
        bool all_waiting = true;
        for (unsigned id = 0; id < n; id++) {
            struct tasklet *t = &tasklets[id];
            if (t->finished)
                continue;
            __dpurt.current = id;
            t->waiting = false;
            switch_to_tasklet(id);
            if (t->finished) {
                live--;
                all_waiting = false;
            } else if (!t->waiting) {
                all_waiting = false;
            }
        }
        if (live > 0 && all_waiting && __dpurt.progress == progress_before) {
            char detail[512] = "";
            size_t used = 0;
            for (unsigned id = 0; id < n && used < sizeof(detail) - 64; id++)
                if (!tasklets[id].finished)
                    used += (size_t)snprintf(detail + used, sizeof(detail) - used, "%s%u in %s",
                                             used ? ", " : "", id, tasklets[id].waits_in);
            __dpurt.current = 0;
            __dpurt_fault(NULL, 0, "deadlock: every live tasklet waits forever (tasklet %s)", detail);
        }
    }
}

sysname_t me(void)
{
    return __dpurt.current;
}

void halt(void)
{
    tasklet_exit();
}

bool __dpurt_in_stack_guard(const void *address, unsigned *tasklet)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), at = (uintptr_t)address;
    for (unsigned id = 0; id < __dpurt.nr_tasklets; id++) {
        uintptr_t bottom = (uintptr_t)tasklets[id].stack;
        if (bottom != 0 && at >= bottom - page && at < bottom) {
            *tasklet = id;
            return true;
        }
    }
    return false;
}

int check_stack(void)
{
    char here;
    return (int)(&here - tasklets[__dpurt.current].stack);
}

void barrier_wait(barrier_t *barrier)
{
    if (barrier->count == 0 || barrier->count > __dpurt.nr_tasklets)
        __dpurt_fault(NULL, 0, "barrier_wait: the barrier counts %u tasklets but the program has %u",
                      barrier->count, __dpurt.nr_tasklets);
    uint32_t generation = barrier->generation;
    if (++barrier->arrived >= barrier->count) {
        barrier->arrived = 0;
        barrier->generation++;
        __dpurt.progress++;
        return;
    }
    while (barrier->generation == generation)
        wait_in("barrier_wait");
}

void mutex_lock(mutex_id_t mutex)
{
    while (mutex->locked)
        wait_in("mutex_lock");
    mutex->locked = 1;
    mutex->owner = __dpurt.current;
}

bool mutex_trylock(mutex_id_t mutex)
{
    if (mutex->locked)
        return false;
    mutex->locked = 1;
    mutex->owner = __dpurt.current;
    return true;
}

void mutex_unlock(mutex_id_t mutex)
{
    mutex->locked = 0;
    __dpurt.progress++;
}

void sem_take(sem_t *sem)
{
    while (sem->count <= 0)
        wait_in("sem_take");
    sem->count--;
}

void sem_give(sem_t *sem)
{
    sem->count++;
    __dpurt.progress++;
}

void handshake_notify(void)
{
    unsigned self = __dpurt.current;
    while (handshake_waiter[self] == 0)
        wait_in("handshake_notify");
    handshake_waiter[self] = 0;
    __dpurt.progress++;
}

int handshake_wait_for(sysname_t notifier)
{
    if (notifier >= __dpurt.nr_tasklets)
        __dpurt_fault(NULL, 0, "handshake_wait_for(%u): the program has only %u tasklets", notifier,
                      __dpurt.nr_tasklets);
    if (handshake_waiter[notifier] != 0)
        return EALREADY;
    uint32_t token = __dpurt.current + 1;
    handshake_waiter[notifier] = token;
    __dpurt.progress++;
    while (handshake_waiter[notifier] == token)
        wait_in("handshake_wait_for");
    return 0;
}
