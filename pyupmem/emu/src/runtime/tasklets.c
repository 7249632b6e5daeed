/* tasklets.c: tasklets as coroutines on the worker's single thread, and the scheduler
 * that interleaves them as the DPU does.
 *
 * Each tasklet has a modelled clock: the DPU cycle at which it can issue its next
 * instruction. A tasklet runs natively until a switch point (a DMA, a wait, its end);
 * there its clock advances by what the hardware would charge, and the scheduler resumes
 * the runnable tasklet whose clock is furthest behind, ties in round-robin order; DMAs and
 * mutex acquisitions happen in modelled-time order. That one mechanism gives both the
 * hardware's interleaving (a DMA lets the others run; tasklets released together take
 * turns) and a time estimate (the launch's cycles are the largest clock).
 *
 * The pipeline: the DPU issues at most one instruction per cycle, and a tasklet at most
 * one every 11 cycles (the pipeline's depth). So while k tasklets compete for it, each
 * issues one instruction every max(11, k) cycles. A tasklet competes unless it waits for
 * its DMA or sleeps (barrier, semaphore, handshake); one that spins on a mutex competes,
 * since every retry of `acquire` is an issued instruction. Each tasklet's instructions are
 * charged at that shared pace over the stretch of modelled time they take, from what the
 * others are known to do then (their idle stretches, pace.c), so every tasklet's clock,
 * and perfcounter_get() in it, is the DPU's time.
 *
 * A tasklet that runs long without a switch point (a spin-wait on a WRAM flag) is
 * preempted by a CPU-time timer, so the tasklet it waits for gets to run. Only such a
 * tasklet: a preemption splits a stretch where wall time says, and the others run in
 * between, so the modelled times of a run that reaches its switch points in time must not
 * depend on one. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include <defs.h>

#include "runtime.h"

#include <ucontext.h>

/* Each tasklet has two stacks. Its DPU stack is the one its program sees: the size the
 * program asks for (STACK_SIZE_DEFAULT, STACK_SIZE_TASKLET_<n>), painted at load so
 * that check_stack() tells what was never used, with a guard right below, so that an
 * overflow faults. Its runtime stack holds the emulator's own frames: the stubs switch to
 * it on every call into the runtime (dpulibc/imports.S), and the coroutine switch keeps
 * its registers there. Host code needs far more stack than a DPU's 1 KiB. */
#define RUNTIME_STACK_SIZE (256u << 10)
#define STACK_PAINT 0x5a5a5a5a5a5a5a5aull
/* The preemption timer's period in CPU time: a tasklet that passed no switch point
 * during a whole period is preempted at its end. */
#define PREEMPT_SLICE_US 1000

/* WAITING sleeps (barrier, semaphore, handshake: the DPU's stop/resume); SPINNING retries
 * a mutex's acquire, issuing instructions as it does. */
enum tasklet_state { RUNNABLE, WAITING, SPINNING, FINISHED };

struct tasklet {
    void *sp;
    char *runtime_stack;      /* lowest usable byte; a guard page lies below */
    uint64_t runtime_top;     /* where the stubs start the runtime's frames */
    char *dpu_stack;          /* lowest byte of its DPU stack; a guard page lies below */
    uint32_t dpu_stack_size;  /* bytes */
    uint64_t counted_at;      /* __dpurt_instructions when its clock was last brought up to date */
    const void *waits_for;    /* the object a waiting tasklet is blocked on */
    const char *waits_in;     /* the primitive it is blocked in */
    struct emu_tasklet_times times; /* its modelled cycles by activity, its instructions */
};

static struct tasklet tasklets[EMU_MAX_TASKLETS];
/* Where a preemption interrupted each tasklet: its registers and SSE state (fxsave). Apart
 * from `tasklets`, which every launch and switch reads. */
static struct {
    greg_t registers[NGREG];
    uint8_t fpu[512] __attribute__((aligned(16)));
} preempted_at[EMU_MAX_TASKLETS];
/* What pick_next scans at every DMA, kept apart from the contexts in a few cache lines
 * (a worker starts each launch with cold caches): each tasklet's state, and its clock,
 * the modelled cycle at which it issues next. */
static uint8_t states[EMU_MAX_TASKLETS];
static uint32_t runnable; /* bit id: states[id] == RUNNABLE */
static uint64_t clocks[EMU_MAX_TASKLETS];
/* (Each tasklet's idle stretch, the modelled time in which it does not compete for the
 * pipeline, is pace.c's: its last DMA, its sleep, or everything after its end.) */
static bool tracing;
static void *scheduler_sp;
static volatile sig_atomic_t in_tasklet;   /* a tasklet runs (not the scheduler) */
static volatile sig_atomic_t preempted;    /* the running tasklet was preempted */
static volatile uint32_t switch_points;    /* scheduling decisions so far (pick_next) */
static uint32_t switch_points_at_tick;     /* switch_points at the timer's last tick */
static uintptr_t program_text_start, program_text_end;
static uint64_t *runtime_stack_word; /* the program's __dpurt_runtime_stack */
static uint64_t shuffle_state;
static uint64_t earliest; /* the earliest runnable clock at the last pick */

/* The running tasklet's instruction count as its program last published it: programs
 * built with cost counting keep each tasklet's count in r15 and store it in the program's
 * __dpurt_instructions before every call and return (toolchain/dpu_cost_as.py); 0 when
 * they do not count. */
static uint64_t unpublished;
static uint64_t *published_instructions = &unpublished;
#define __dpurt_instructions (*published_instructions)

void __dpurt_switch(void **from, void *to);
void __dpurt_trampoline(void);
/* Calls the program's `entry` on the DPU stack whose top is `stack_top`, after storing the
 * runtime stack's top below this frame in *runtime_top and *published_top. */
void __dpurt_call_dpu(uint64_t entry, uint64_t stack_top, uint64_t *runtime_top,
                      uint64_t *published_top);
/* Resumes a preempted tasklet where it was: every register from `registers`, SSE from
 * `fpu`. */
void __dpurt_resume_context(const greg_t *registers, const void *fpu) __attribute__((noreturn));

static void set_state(unsigned id, enum tasklet_state state)
{
    states[id] = (uint8_t)state;
    runnable = state == RUNNABLE ? runnable | 1u << id : runnable & ~(1u << id);
}

/* A tasklet runs again: its count as it left it, and its runtime stack for the stubs. */
static inline void resumed(struct tasklet *self)
{
    __dpurt_instructions = self->counted_at;
    *runtime_stack_word = self->runtime_top;
}

static void switch_to_scheduler(void)
{
    struct tasklet *self = &tasklets[__dpurt.current];
    in_tasklet = 0;
    __dpurt_switch(&self->sp, scheduler_sp);
    /* Resumed: the others published their counts meanwhile; this tasklet's own was
     * counted before it switched away. */
    resumed(self);
}

/* A switch point where the running tasklet stays runnable: go straight to `next`, without
 * a round trip through the scheduler (half the context switches of a DMA). */
static void yield_to(unsigned next)
{
    struct tasklet *self = &tasklets[__dpurt.current];
    __dpurt.current = next;
    __dpurt_switch(&self->sp, tasklets[next].sp);
    resumed(self); /* see switch_to_scheduler */
}

static void switch_to_tasklet(unsigned id)
{
    in_tasklet = 1;
    __dpurt_switch(&scheduler_sp, tasklets[id].sp);
}

/* A stretch on the kept timeline (a stretch of the same activity that goes on is merged). */
static __attribute__((noinline)) void record_stretch(unsigned id, enum emu_activity activity,
                                                     uint64_t from, uint64_t to)
{
    struct emu_slot *slot = __dpurt.slot;
    uint32_t n = slot->trace_len;
    struct emu_trace_event *last = n ? &slot->trace[n - 1] : NULL;
    if (last && last->tasklet == id && last->activity == (uint32_t)activity && last->end == from) {
        last->end = to; /* one stretch of the same activity */
        return;
    }
    if (n == EMU_TRACE_EVENTS) {
        slot->trace_dropped++;
        return;
    }
    slot->trace[n] = (struct emu_trace_event){from, to, id, (uint32_t)activity};
    slot->trace_len = n + 1;
}

/* Adds a stretch of `activity` to tasklet id's times, and to the timeline if one is kept
 * (inline: it runs at every switch point, the timeline rarely). */
static inline void trace(unsigned id, enum emu_activity activity, uint64_t from, uint64_t to)
{
    tasklets[id].times.cycles[activity] += to - from;
    if (tracing && to != from)
        record_stretch(id, activity, from, to);
}

/* Charges tasklet `id`, from its clock on, `issued` instructions. */
static void issue(unsigned id, uint64_t issued)
{
    uint64_t from = clocks[id];
    clocks[id] = __dpurt_pace_issue_end(id, from, issued);
    tasklets[id].times.instructions += issued;
    __dpurt.instructions += issued;
    trace(id, EMU_ACTIVITY_COMPUTE, from, clocks[id]);
}

/* Brings the running tasklet's clock up to date with the instructions it issued since its
 * clock was last set. */
static void count_instructions(void)
{
    struct tasklet *self = &tasklets[__dpurt.current];
    uint64_t issued = __dpurt_instructions - self->counted_at;
    if (issued == 0)
        return;
    self->counted_at = __dpurt_instructions;
    issue(__dpurt.current, issued);
}

/* The earliest modelled time at which every tasklet can have met: the DPU issued every
 * instruction since they last all met, at most one per cycle, in the cycles the DMA
 * engine left it: the engine moves each 8-byte word through WRAM's one 64-bit port, a
 * cycle in which no instruction issues. (The shared pace above gives the instructions'
 * part already where the others' activity was known; this bounds the rest.) */
static uint64_t pipeline_bound(uint64_t latest)
{
    uint64_t bound = __dpurt.met_at + (__dpurt.instructions - __dpurt.met_instructions) +
                     (__dpurt.dma_words - __dpurt.met_dma_words);
    return bound > latest ? bound : latest;
}

void __dpurt_charge(uint32_t instructions)
{
    if (!__dpurt.counting)
        return;
    /* One charge with the instructions the program issued since its clock was set. */
    struct tasklet *self = &tasklets[__dpurt.current];
    uint64_t issued = __dpurt_instructions - self->counted_at + instructions;
    self->counted_at = __dpurt_instructions;
    issue(__dpurt.current, issued);
}

uint64_t __dpurt_clock(void)
{
    count_instructions();
    return clocks[__dpurt.current];
}

uint64_t __dpurt_dpu_clock(void)
{
    /* Only when no other tasklet can still run were all the instructions counted so far
     * issued before now (a tasklet that ran ahead may have counted later ones). */
    uint64_t own = __dpurt_clock();
    for (unsigned id = 0; id < __dpurt.nr_tasklets; id++)
        if (id != __dpurt.current && states[id] == RUNNABLE)
            return own;
    return pipeline_bound(own);
}

static int pick_next(unsigned last);

/* The running tasklet stops running (it waits or has finished): straight on to the next
 * one the scheduler would pick, without a round trip through it; to the scheduler only
 * when none can run (the launch's end, a deadlock). */
static void switch_away(void)
{
    int next = pick_next(__dpurt.current);
    if (next >= 0)
        yield_to((unsigned)next);
    else
        switch_to_scheduler();
}

static __attribute__((noreturn)) void tasklet_exit(void)
{
    count_instructions();
    set_state(__dpurt.current, FINISHED);
    __dpurt_pace_set_idle(__dpurt.current, clocks[__dpurt.current], UINT64_MAX);
    switch_away();
    __builtin_unreachable();
}

static void tasklet_entry(void)
{
    struct tasklet *self = &tasklets[__dpurt.current];
    uint64_t top = ((uint64_t)(uintptr_t)self->dpu_stack + self->dpu_stack_size) & ~15ull;
    __dpurt_call_dpu(__dpurt_image.entry, top, &self->runtime_top, runtime_stack_word);
    tasklet_exit();
}

static void reset_context(unsigned id)
{
    struct tasklet *t = &tasklets[id];
    char *top = t->runtime_stack + RUNTIME_STACK_SIZE;
    /* The frame __dpurt_switch pops: MXCSR/x87 word, r15..r12, rbx, rbp, return address.
     * After `ret`, rsp is 16-aligned, as the trampoline's call expects. */
    uint64_t *frame = (uint64_t *)top - 8;
    uint32_t control[2] = {0, 0}; /* as __dpurt_switch saves them */
    __asm__ volatile("stmxcsr %0" : "=m"(control[0]));
    __asm__ volatile("fnstcw %0" : "=m"(control[1]));
    memset(frame, 0, 8 * sizeof(uint64_t));
    memcpy(&frame[0], control, 8);
    frame[3] = (uint64_t)(uintptr_t)tasklet_entry; /* r13 */
    frame[7] = (uint64_t)(uintptr_t)__dpurt_trampoline;
    t->sp = frame;
    t->runtime_top = 0;
    set_state(id, RUNNABLE);
    /* The pipeline issues the tasklets' instructions in turn, one per cycle: released
     * together, tasklet t issues its first instruction t cycles after tasklet 0, so with
     * equal code tasklet 0 gets to a mutex or a DMA first. */
    clocks[id] = id;
    memset(&t->times, 0, sizeof(t->times));
    t->counted_at = 0; /* its r15 starts at 0: the frame above is zeroed */
    t->waits_for = NULL;
    t->waits_in = NULL;
}

static uintptr_t interrupted_pc(void *context)
{
    return (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
}

/* A preempted tasklet goes on here, on its runtime stack, with the registers it was
 * interrupted with saved: it lets the scheduler run, then resumes where it was. */
static __attribute__((noreturn)) void on_preempted(void)
{
    unsigned self = __dpurt.current;
    if (__dpurt.counting) {
        /* Its instruction count was in r15: bring its clock up to date, so that the
         * scheduler sees how far it got. */
        __dpurt_instructions = (uint64_t)preempted_at[self].registers[REG_R15];
        count_instructions();
    }
    preempted = 1;
    switch_to_scheduler();
    __dpurt_resume_context(preempted_at[self].registers, preempted_at[self].fpu);
}

/* The preemption timer. It runs on the signal stack, not the DPU stack (which is the
 * program's, and small), and only interrupts the program's own code (not this runtime
 * nor the C library's functions, which may be mid-update): it saves the tasklet's
 * registers and makes it go on in on_preempted instead. */
static void on_preempt_timer(int signo, siginfo_t *info, void *context)
{
    (void)signo;
    (void)info;
    ucontext_t *interrupted = context;
    uintptr_t pc = interrupted_pc(context);
    if (!in_tasklet || __dpurt_stepping || pc < program_text_start || pc >= program_text_end)
        return;
    if (switch_points != switch_points_at_tick) {
        switch_points_at_tick = switch_points; /* it reached a switch point this period */
        return;
    }
    struct tasklet *self = &tasklets[__dpurt.current];
    if (self->runtime_top == 0)
        return;
    memcpy(preempted_at[__dpurt.current].registers, interrupted->uc_mcontext.gregs,
           sizeof(preempted_at[0].registers));
    memcpy(preempted_at[__dpurt.current].fpu, interrupted->uc_mcontext.fpregs,
           sizeof(preempted_at[0].fpu));
    interrupted->uc_mcontext.gregs[REG_RSP] = (greg_t)(self->runtime_top - 8); /* as after a call */
    interrupted->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)on_preempted;
}

static void set_preempt_timer(bool on)
{
    struct itimerval timer = {{0, 0}, {0, 0}};
    if (on) {
        timer.it_interval.tv_usec = PREEMPT_SLICE_US;
        timer.it_value.tv_usec = PREEMPT_SLICE_US;
    }
    setitimer(ITIMER_VIRTUAL, &timer, NULL);
}

/* A stack with a guard right below its lowest byte, below 4 GiB (the program's pointers
 * are 32 bits). The guard is as large as a DPU's WRAM, so that a frame too large for the
 * stack (a local array) lands in it too, rather than past it. */
#define GUARD_SIZE EMU_WRAM_SIZE
static char *guarded_stack(size_t size, unsigned id)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t rounded = (size + page - 1) & ~(page - 1);
    char *block = mmap(NULL, rounded + GUARD_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_32BIT, -1, 0);
    if (block == MAP_FAILED)
        __dpurt_fault(NULL, 0, "cannot allocate the stacks of tasklet %u", id);
    mprotect(block, GUARD_SIZE, PROT_NONE); /* an overflow faults instead of corrupting */
    return block + GUARD_SIZE;
}

void __dpurt_tasklets_init(void)
{
    const unsigned *sizes = (const unsigned *)(uintptr_t)__dpurt_image.stack_sizes;
    for (unsigned id = 0; id < __dpurt.nr_tasklets; id++) {
        tasklets[id].runtime_stack = guarded_stack(RUNTIME_STACK_SIZE, id);
        tasklets[id].dpu_stack_size = (sizes[id] + 7u) & ~7u;
        tasklets[id].dpu_stack = guarded_stack(tasklets[id].dpu_stack_size, id);
        __dpurt.stacks_size += tasklets[id].dpu_stack_size;
        /* Painted once, at load, so that check_stack() sees what was never used since;
         * a launch touches only the stack it uses. */
        uint64_t *word = (uint64_t *)tasklets[id].dpu_stack;
        for (uint32_t i = 0; i < tasklets[id].dpu_stack_size / 8; i++)
            word[i] = STACK_PAINT;
    }
    program_text_start = __dpurt_image.text_start;
    program_text_end = __dpurt_image.text_end;
    runtime_stack_word = (uint64_t *)(uintptr_t)__dpurt_image.runtime_stack;
    published_instructions = (uint64_t *)(uintptr_t)__dpurt_image.instructions;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = on_preempt_timer;
    action.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGVTALRM, &action, NULL);
    shuffle_state = __dpurt.shuffle_seed ^ (0x9e3779b97f4a7c15ull * (__dpurt.slot ? __dpurt.slot->dpu_id + 1 : 1));
}

static uint64_t next_random(void)
{
    /* splitmix64: a seeded, reproducible choice at each switch point */
    uint64_t z = (shuffle_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The next tasklet to run: the runnable one with the earliest clock, ties in round-robin
 * order after `last` (so tasklets released together take turns); a random runnable
 * one under the shuffle schedule. -1 when none can run. */
static int pick_next(unsigned last)
{
    switch_points++;
    if (__dpurt.shuffle) {
        unsigned candidates = (unsigned)__builtin_popcount(runnable);
        if (candidates == 0)
            return -1;
        uint32_t left = runnable; /* the chosen-th runnable one, in id order */
        for (uint64_t chosen = next_random() % candidates; chosen > 0; chosen--)
            left &= left - 1;
        return __builtin_ctz(left);
    }
    /* The earliest clock; the first found wins ties, so the scan order after `last` is the
     * round robin: the runnable ones above `last`, then those up to it. No runnable clock
     * is ever earlier than the last pick's (clocks only advance, and a woken tasklet
     * resumes no earlier than its waker), so the first one found there wins at once:
     * tasklets released together take their turns without a scan. */
    uint64_t best_clock = UINT64_MAX;
    int best = -1;
    uint32_t up_to_last = (uint32_t)((2ull << last) - 1);
    uint32_t order[2] = {runnable & ~up_to_last, runnable & up_to_last};
    for (unsigned part = 0; part < 2; part++)
        for (uint32_t left = order[part]; left != 0; left &= left - 1) {
            unsigned each = (unsigned)__builtin_ctz(left);
            if (clocks[each] < best_clock) {
                best_clock = clocks[each];
                best = (int)each;
                if (best_clock == earliest)
                    goto found;
            }
        }
    if (best < 0)
        return -1;
found:
    earliest = best_clock;
    return best;
}

static __attribute__((noreturn)) void report_deadlock(void)
{
    char detail[512] = "";
    size_t used = 0;
    for (unsigned id = 0; id < __dpurt.nr_tasklets && used < sizeof(detail) - 64; id++)
        if (states[id] == WAITING || states[id] == SPINNING)
            used += (size_t)snprintf(detail + used, sizeof(detail) - used, "%s%u in %s",
                                     used ? ", " : "", id, tasklets[id].waits_in);
    __dpurt.current = 0;
    __dpurt_fault_dpu("deadlock: every live tasklet waits forever (tasklet %s)", detail);
}

/* The launch's breakdown (and timeline) for the host, in this DPU's slot. */
static void publish_times(void)
{
    struct emu_slot *slot = __dpurt.slot;
    if (slot == NULL)
        return;
    slot->last_launch_tasklets = __dpurt.nr_tasklets;
    for (unsigned id = 0; id < __dpurt.nr_tasklets; id++)
        slot->tasklet_times[id] = tasklets[id].times;
}

void __dpurt_run_launch(void)
{
    unsigned n = __dpurt.nr_tasklets;
    runnable = 0;
    earliest = 0;
    __dpurt_pace_reset(n);
    for (unsigned id = 0; id < n; id++)
        reset_context(id);
    __dpurt.dma_free = 0;
    __dpurt.instructions = 0;
    __dpurt.met_at = 0;
    __dpurt.met_instructions = 0;
    __dpurt.dma_words = __dpurt.met_dma_words = 0;
    __dpurt_instructions = 0;
    tracing = __dpurt.slot != NULL && __dpurt.slot->trace_requested != 0;
    if (__dpurt.slot != NULL)
        __dpurt.slot->trace_len = __dpurt.slot->trace_dropped = 0;
    __dpurt_sync_reset();
    __dpurt_perfcounter_reset();
    if (n > 1)
        set_preempt_timer(true);
    unsigned last = n - 1; /* so that tasklet 0 starts */
    for (;;) {
        int next = pick_next(last);
        if (next < 0)
            break;
        __dpurt.current = (unsigned)next;
        switch_to_tasklet((unsigned)next);
        last = __dpurt.current; /* tasklets may have yielded to one another meanwhile */
        if (preempted && __dpurt.counting) {
            preempted = 0; /* its clock counts what it did: the earliest one runs next */
        } else if (preempted) {
            /* Without counting its clock did not move: let every other one go first. */
            preempted = 0;
            uint64_t *own = &clocks[last];
            for (unsigned id = 0; id < n; id++)
                if (states[id] == RUNNABLE && clocks[id] > *own)
                    *own = clocks[id];
            (*own)++;
        }
    }
    set_preempt_timer(false);
    uint64_t cycles = 0;
    for (unsigned id = 0; id < n; id++) {
        if (states[id] == WAITING || states[id] == SPINNING)
            report_deadlock();
        if (clocks[id] > cycles)
            cycles = clocks[id];
    }
    __dpurt.launch_cycles = pipeline_bound(cycles);
    publish_times();
}

/* A switch point: let the tasklets whose clocks are behind this one's (or level with it,
 * round robin) run first. */
static void yield_if_behind(void)
{
    unsigned self = __dpurt.current;
    int next = pick_next(self);
    if (next >= 0 && (unsigned)next != self)
        yield_to((unsigned)next);
}

void __dpurt_turn(void)
{
    /* Wait until no runnable tasklet is behind this one in modelled time (it may still
     * do something earlier: a DMA, an acquisition). */
    count_instructions();
    if (__dpurt.shuffle)
        return;
    unsigned self = __dpurt.current;
    int next = pick_next(self);
    if (next >= 0 && (unsigned)next != self && clocks[next] < clocks[self])
        yield_to((unsigned)next);
    /* Resumed: whoever switched here chose the earliest runnable tasklet, so it is this
     * one's turn now; no need to look again. */
}

void __dpurt_dma_booked(uint32_t latency, uint32_t bytes)
{
    /* One DMA engine per DPU, the issuing tasklet waits: alpha + beta * size cycles. It
     * does not compete for the pipeline meanwhile. */
    unsigned self = __dpurt.current;
    uint64_t issued = clocks[self];
    uint64_t start = issued > __dpurt.dma_free ? issued : __dpurt.dma_free;
    clocks[self] = start + latency + bytes / 2;
    __dpurt.dma_free = clocks[self];
    __dpurt.dma_words += bytes / 8;
    __dpurt_pace_set_idle(self, issued, clocks[self]);
    trace(self, EMU_ACTIVITY_DMA, issued, clocks[self]);
    yield_if_behind();
}

void __dpurt_dma(uint32_t latency, uint32_t bytes)
{
    __dpurt_turn();
    __dpurt_dma_booked(latency, bytes);
}

void __dpurt_block(const void *object, const char *primitive, bool spins)
{
    unsigned self = __dpurt.current;
    struct tasklet *t = &tasklets[self];
    count_instructions();
    set_state(self, spins ? SPINNING : WAITING);
    t->waits_for = object;
    t->waits_in = primitive;
    if (!spins)
        __dpurt_pace_set_idle(self, clocks[self], UINT64_MAX);
    switch_away();
}

/* Tasklets competing for the pipeline at modelled time `at` (a spinner's pace). */
static unsigned competing_at(uint64_t at)
{
    unsigned competing = 0;
    for (unsigned id = 0; id < __dpurt.nr_tasklets; id++)
        competing += states[id] != FINISHED && !__dpurt_pace_idle_at(id, at);
    return competing;
}

/* Advances tasklet `id`'s clock to `until` (if later): it waited for another tasklet. */
static void advance_waiting(unsigned id, uint64_t until, bool spins)
{
    uint64_t from = clocks[id];
    if (until <= from)
        return;
    clocks[id] = until;
    trace(id, EMU_ACTIVITY_WAIT, from, until);
    if (!spins) {
        __dpurt_pace_set_idle(id, from, until);
    } else if (__dpurt.counting) {
        /* Each retry of `acquire` is an instruction, issued at the shared pace. The others'
         * pace counted this tasklet as competing already, so the retries stay out of the
         * DPU's total that bounds the launch (pipeline_bound): they fill slots it left. */
        unsigned competing = competing_at(from);
        tasklets[id].times.instructions += (until - from) / shared_pace(competing);
    }
}

void __dpurt_wait_until(uint64_t until, bool spins)
{
    count_instructions();
    advance_waiting(__dpurt.current, until, spins);
}

void __dpurt_wake(const void *object)
{
    uint64_t now = __dpurt_clock();
    for (unsigned id = 0; id < __dpurt.nr_tasklets; id++) {
        struct tasklet *t = &tasklets[id];
        if ((states[id] != WAITING && states[id] != SPINNING) || t->waits_for != object)
            continue;
        bool spun = states[id] == SPINNING;
        set_state(id, RUNNABLE);
        t->waits_for = NULL;
        if (!spun) /* it sleeps until the waker released it */
            __dpurt_pace_set_idle(id, __dpurt_pace_idle_from(id),
                                  now > clocks[id] ? now : clocks[id]);
        advance_waiting(id, now, spun);
    }
}

void __dpurt_release_together(const void *object)
{
    /* Everyone leaves when the last of them arrived, in modelled time. */
    uint64_t latest = __dpurt_clock();
    unsigned waiting = 0;
    for (unsigned id = 0; id < __dpurt.nr_tasklets; id++)
        if (states[id] == WAITING && tasklets[id].waits_for == object) {
            waiting++;
            if (clocks[id] > latest)
                latest = clocks[id];
        }
    if (waiting + 1 == __dpurt.nr_tasklets) {
        latest = pipeline_bound(latest);
        __dpurt.met_at = latest;
        __dpurt.met_instructions = __dpurt.instructions;
        __dpurt.met_dma_words = __dpurt.dma_words;
        /* The stretches so far are all past, and so are the sleeps the release ends: told
         * first, the pace keeps none of them (no list work for each waiter). */
        __dpurt_pace_all_met(latest);
    }
    __dpurt_wait_until(latest, false);
    __dpurt_wake(object);
}


sysname_t me(void)
{
    return __dpurt.current;
}

void halt(void)
{
    tasklet_exit();
}

bool __dpurt_in_program_text(uintptr_t pc)
{
    return pc >= program_text_start && pc < program_text_end;
}

bool __dpurt_in_stack_guard(const void *address, unsigned *tasklet, uint32_t *stack_size)
{
    uintptr_t at = (uintptr_t)address;
    for (unsigned id = 0; id < __dpurt.nr_tasklets; id++) {
        uintptr_t bottom = (uintptr_t)tasklets[id].dpu_stack;
        if (bottom != 0 && at >= bottom - GUARD_SIZE && at < bottom) {
            *tasklet = id;
            *stack_size = tasklets[id].dpu_stack_size;
            return true;
        }
    }
    return false;
}

uintptr_t __dpurt_program_return_address(uintptr_t sp)
{
    struct tasklet *self = &tasklets[__dpurt.current];
    uintptr_t bottom = (uintptr_t)self->dpu_stack, top = bottom + self->dpu_stack_size;
    if (sp < bottom || sp >= top) {
        /* In the runtime: the stub left the program's stack pointer at its stack's top. */
        if (self->runtime_top == 0)
            return 0;
        sp = (uintptr_t)*(const uint64_t *)(uintptr_t)(self->runtime_top - 8);
        if (sp < bottom || sp >= top)
            return 0;
    }
    /* The return address of the program's call: the first word on its stack just past a
     * byte of its code (a leaf of the C library may have pushed a few words first; a
     * noreturn call, assert's, can be the code's last instruction). */
    for (uintptr_t at = sp & ~7ul; at + 8 <= top && at < sp + 256; at += 8) {
        uint64_t word = *(const uint64_t *)at;
        if (word != 0 && __dpurt_in_program_text((uintptr_t)word - 1))
            return (uintptr_t)word;
    }
    return 0;
}

int check_stack(void)
{
    /* The DPU stack grows down: what was never used is the painted run at its bottom. */
    struct tasklet *self = &tasklets[__dpurt.current];
    const uint64_t *word = (const uint64_t *)self->dpu_stack;
    uint32_t words = self->dpu_stack_size / 8, unused = 0;
    while (unused < words && word[unused] == STACK_PAINT)
        unused++;
    return (int)(unused * 8);
}
