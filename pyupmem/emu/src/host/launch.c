/* launch.c: launching, waiting, and stopping workers. A launch is a store per DPU and a
 * futex wake per rank; waiting is a futex sleep that the last DPU to finish ends. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host.h"

static void futex_wait(_Atomic uint32_t *word, uint32_t seen, long timeout_ms)
{
    struct timespec timeout = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
    syscall(SYS_futex, word, FUTEX_WAIT, seen, &timeout, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word, int count)
{
    syscall(SYS_futex, word, FUTEX_WAKE, count, NULL, NULL, 0);
}

/* A zygote that died (it never should before its workers) takes its DPUs with it. */
void emu_reap_zygotes(struct emu_allocation *allocation, bool block)
{
    for (struct dpu_program_t *program = allocation->programs; program; program = program->next) {
        if (program->zygote <= 0)
            continue;
        int status;
        pid_t pid = waitpid(program->zygote, &status, block ? 0 : WNOHANG);
        if (pid != program->zygote && !(pid < 0 && errno == ECHILD))
            continue;
        program->zygote = 0;
        for (uint32_t i = program->first; i < program->first + program->count; i++) {
            struct emu_slot *slot = emu_slot(allocation, i);
            if (allocation->dpus[i].program != program)
                continue;
            uint32_t state = atomic_load(&slot->state);
            if (state == EMU_LOADING || state == EMU_RUNNING || state == EMU_READY) {
                if (!block)
                    snprintf(slot->fault, EMU_FAULT_SIZE, "the DPU's supervisor process died");
                atomic_store(&slot->state, block ? EMU_EMPTY : EMU_FAULT);
                if (state == EMU_RUNNING)
                    atomic_fetch_sub(&allocation->control->running, 1);
            }
            atomic_store(&slot->pid, 0);
        }
    }
}

static uint64_t monotonic_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000u + (uint64_t)now.tv_nsec / 1000000u;
}

dpu_error_t emu_wait(struct emu_range range, bool for_load, uint32_t timeout_ms)
{
    struct emu_control *control = range.allocation->control;
    uint32_t busy = for_load ? EMU_LOADING : EMU_RUNNING;
    uint64_t deadline = timeout_ms ? monotonic_ms() + timeout_ms : 0;
    for (;;) {
        uint32_t generation = atomic_load(&control->generation);
        uint32_t pending = 0;
        bool fault = false;
        for (uint32_t i = range.first; i < range.first + range.count; i++) {
            uint32_t state = atomic_load(&control->slots[i].state);
            pending += state == busy;
            fault |= state == EMU_FAULT;
        }
        if (pending == 0) {
            atomic_store(&control->wake_each, 0);
            if (!for_load && !fault)
                emu_account_launch_end(range.allocation);
            return fault ? DPU_ERR_DPU_FAULT : DPU_OK;
        }
        /* Others still run: the last DPU to finish would not be one of ours. */
        if (for_load || atomic_load(&control->running) > pending)
            atomic_store(&control->wake_each, 1);
        long nap = 200;
        if (deadline) {
            uint64_t now = monotonic_ms();
            if (now >= deadline) {
                atomic_store(&control->wake_each, 0);
                return DPU_ERR_TIMEOUT;
            }
            nap = deadline - now < 200 ? (long)(deadline - now) : 200;
        }
        futex_wait(&control->generation, generation, nap);
        emu_reap_zygotes(range.allocation, false);
    }
}

/* pyupmem's extension to libdpu: dpu_sync with a time limit (0: none), returning
 * DPU_ERR_TIMEOUT when the DPUs still run. Lets a caller stay interruptible (Ctrl-C in
 * Python) while it waits. */
dpu_error_t dpu_emu_sync_timeout(struct dpu_set_t dpu_set, uint32_t timeout_ms)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    return status != DPU_OK ? status : emu_wait(range, false, timeout_ms);
}

dpu_error_t dpu_emu_launch_cycles(struct dpu_set_t dpu_set, uint64_t *cycles, bool *counted)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    if (cycles == NULL)
        return DPU_ERR_INVALID_BUFFER_SIZE;
    for (uint32_t i = 0; i < range.count; i++) {
        const struct emu_slot *slot = emu_slot(range.allocation, range.first + i);
        cycles[i] = slot->last_launch_cycles;
        if (counted != NULL)
            counted[i] = slot->last_launch_counted != 0;
    }
    return DPU_OK;
}

dpu_error_t dpu_emu_clock_mhz(struct dpu_set_t dpu_set, uint32_t *mhz)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    *mhz = range.allocation->profile.clock_mhz;
    return DPU_OK;
}

void emu_stop_workers(struct emu_allocation *allocation, uint32_t first, uint32_t count)
{
    struct emu_control *control = allocation->control;
    for (uint32_t i = first; i < first + count; i++) {
        struct emu_slot *slot = &control->slots[i];
        pid_t pid = atomic_load(&slot->pid);
        atomic_store(&slot->state, EMU_EMPTY);
        if (pid > 0)
            kill(pid, SIGKILL);
    }
    atomic_store(&control->wake_each, 1);
    for (;;) {
        uint32_t generation = atomic_load(&control->generation);
        bool alive = false;
        for (uint32_t i = first; i < first + count; i++)
            alive |= atomic_load(&control->slots[i].pid) > 0;
        if (!alive)
            break;
        futex_wait(&control->generation, generation, 100);
        emu_reap_zygotes(allocation, false);
    }
    atomic_store(&control->wake_each, 0);
    emu_reap_zygotes(allocation, false);
}

/* pyupmem's extension to libdpu: stop the running DPUs of a set. Their workers are
 * killed (a DPU's WRAM is its worker's memory, so it is lost; MRAM is kept) and the DPUs
 * need a program loaded again before the next launch; a DPU that was not running is left
 * as it is. */
dpu_error_t dpu_emu_stop(struct dpu_set_t dpu_set)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    struct emu_control *control = range.allocation->control;
    uint32_t first = 0, count = 0;
    for (uint32_t i = range.first; i <= range.first + range.count; i++) {
        bool stop = false;
        if (i < range.first + range.count) {
            struct emu_slot *slot = emu_slot(range.allocation, i);
            uint32_t expected = EMU_RUNNING;
            /* A worker that finishes now swaps its state too: only one side counts it. */
            if (atomic_compare_exchange_strong(&slot->state, &expected, EMU_EMPTY)) {
                atomic_fetch_sub(&control->running, 1);
                stop = true;
            }
        }
        if (stop) {
            if (count == 0)
                first = i;
            count++;
        } else if (count > 0) {
            emu_stop_workers(range.allocation, first, count);
            count = 0;
        }
    }
    atomic_fetch_add(&control->generation, 1);
    futex_wake(&control->generation, INT_MAX);
    return DPU_OK;
}

static dpu_error_t check_launchable(struct emu_range range)
{
    for (uint32_t i = range.first; i < range.first + range.count; i++) {
        if (range.allocation->dpus[i].program == NULL)
            return DPU_ERR_NO_PROGRAM_LOADED;
        switch (atomic_load(&emu_slot(range.allocation, i)->state)) {
        case EMU_READY: break;
        case EMU_RUNNING: return DPU_ERR_DPU_ALREADY_RUNNING;
        case EMU_FAULT: return DPU_ERR_DPU_FAULT;
        default: return DPU_ERR_NO_PROGRAM_LOADED;
        }
    }
    return DPU_OK;
}

dpu_error_t dpu_launch(struct dpu_set_t dpu_set, dpu_launch_policy_t policy)
{
    if (policy != DPU_SYNCHRONOUS && policy != DPU_ASYNCHRONOUS)
        return DPU_ERR_INVALID_LAUNCH_POLICY;
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status == DPU_OK)
        status = check_launchable(range);
    if (status != DPU_OK)
        return status;
    struct emu_control *control = range.allocation->control;
    emu_account_launch_start(range);
    atomic_store(&control->faults_printed, 0);
    atomic_fetch_add(&control->running, range.count);
    /* One wake per rank (a syscall per DPU cost more than the launch itself). */
    uint32_t bits = 0;
    for (uint32_t i = range.first; i < range.first + range.count; i++) {
        struct emu_slot *slot = &control->slots[i];
        atomic_store(&slot->state, EMU_RUNNING);
        atomic_fetch_add(&slot->command_seq, 1);
        bits |= emu_launch_bit(i);
        if (i + 1 == range.first + range.count || (i + 1) % EMU_DPUS_PER_RANK == 0) {
            _Atomic uint32_t *word = emu_launch_word(control, i);
            atomic_fetch_add(word, 1);
            syscall(SYS_futex, word, FUTEX_WAKE_BITSET, INT_MAX, NULL, NULL, bits);
            bits = 0;
        }
    }
    if (policy == DPU_ASYNCHRONOUS)
        return DPU_OK;
    return emu_wait(range, false, 0);
}

dpu_error_t dpu_status(struct dpu_set_t dpu_set, bool *done, bool *fault)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status != DPU_OK)
        return status;
    emu_reap_zygotes(range.allocation, false);
    *done = true;
    *fault = false;
    for (uint32_t i = range.first; i < range.first + range.count; i++) {
        uint32_t state = atomic_load(&emu_slot(range.allocation, i)->state);
        *done &= state != EMU_RUNNING;
        *fault |= state == EMU_FAULT;
    }
    return DPU_OK;
}

dpu_error_t dpu_sync(struct dpu_set_t dpu_set)
{
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    return status != DPU_OK ? status : emu_wait(range, false, 0);
}

dpu_error_t dpu_callback(struct dpu_set_t dpu_set,
                         dpu_error_t (*callback)(struct dpu_set_t, uint32_t, void *), void *args,
                         dpu_callback_flags_t flags)
{
    if ((flags & DPU_CALLBACK_NONBLOCKING) && !(flags & DPU_CALLBACK_ASYNC))
        return DPU_ERR_NONBLOCKING_SYNC_CALLBACK;
    struct emu_range range;
    dpu_error_t status = emu_resolve(dpu_set, &range);
    if (status != DPU_OK || callback == NULL)
        return status != DPU_OK ? status : DPU_ERR_INVALID_DPU_SET;
    /* As the SDK: once per rank of the set, with the rank and its index in the set; once
     * with the set itself and index (uint32_t)-1 for a single DPU or DPU_CALLBACK_SINGLE_CALL.
     * The emulator has no per-rank threads: callbacks run here, in order, when called. */
    if ((flags & DPU_CALLBACK_SINGLE_CALL) || dpu_set.kind == DPU_SET_DPU)
        return callback(dpu_set, UINT32_MAX, args);
    for (uint32_t r = 0; r < dpu_set.list.nr_ranks; r++) {
        struct dpu_set_t rank = {.kind = DPU_SET_RANKS};
        rank.list.nr_ranks = 1;
        rank.list.ranks = &dpu_set.list.ranks[r];
        status = callback(rank, r, args);
        if (status != DPU_OK)
            return status;
    }
    return DPU_OK;
}
