/* control.h: the shared-memory block through which the host library (libdpu)
 * and the DPU worker processes (libdpurt) talk. One block per allocation; one
 * slot per DPU. Both sides map it MAP_SHARED, so every field is plain memory
 * plus futexes; no message is exchanged per transfer or per launch. */
#ifndef PYUPMEM_EMU_CONTROL_H
#define PYUPMEM_EMU_CONTROL_H

#include <stdatomic.h>
#include <stdint.h>

#define EMU_MRAM_BASE 0x08000000u
#define EMU_MRAM_SIZE (64u << 20)
#define EMU_WRAM_SIZE (64u << 10)
#define EMU_STACK_SIZE_DEFAULT 1024u
#define EMU_MAX_TASKLETS 24u
#define EMU_DPUS_PER_RANK 64u
#define EMU_LOG_SIZE (64u << 10)
#define EMU_FAULT_SIZE 1024u
#define EMU_ZYGOTE_FLAG "--pyupmem-zygote"
#define EMU_WARNED_SLOTS 256u /* source lines already warned about, per allocation */
#define EMU_TRACE_EVENTS 16384u /* timeline events a traced launch keeps per DPU */

/* What a tasklet's modelled time goes to (the estimate's breakdown, the timeline). */
enum emu_activity {
    EMU_ACTIVITY_COMPUTE = 0, /* issuing instructions, at the pipeline's shared pace */
    EMU_ACTIVITY_DMA = 1,     /* waiting for its DMA (queueing on the engine included) */
    EMU_ACTIVITY_WAIT = 2,    /* waiting for another tasklet: barrier, mutex, semaphore, handshake */
    EMU_ACTIVITIES = 3,
};

/* One stretch of one tasklet's modelled time, in DPU cycles from the launch's start. */
struct emu_trace_event {
    uint64_t start, end;
    uint32_t tasklet;
    uint32_t activity; /* enum emu_activity */
};

/* One tasklet's modelled cycles in the last launch, by activity, and its instructions. */
struct emu_tasklet_times {
    uint64_t cycles[EMU_ACTIVITIES];
    uint64_t instructions;
};

enum emu_state {
    EMU_EMPTY = 0,   /* no worker */
    EMU_LOADING = 1, /* worker being started */
    EMU_READY = 2,   /* idle, waiting for a launch */
    EMU_RUNNING = 3, /* running a launch */
    EMU_FAULT = 4,   /* stopped by a fault; fault[] says why */
};

struct emu_slot {
    _Atomic uint32_t state;
    _Atomic uint32_t command_seq; /* the host bumps it to start a launch */
    _Atomic uint32_t launches;    /* futex of a rank's workers, in its first slot (below) */
    _Atomic int32_t pid;          /* worker pid, 0 when none */
    uint32_t dpu_id;              /* rank << 16 | ci << 8 | member, for messages */
    uint32_t log_len;             /* bytes printed since the last launch */
    uint32_t log_truncated;       /* the last launch printed more than EMU_LOG_SIZE */
    uint64_t last_launch_ns;      /* wall time of the last launch */
    uint64_t last_launch_cycles;  /* modelled DPU cycles of the last launch */
    uint32_t last_launch_counted; /* the program counted its instructions */
    uint32_t last_launch_tasklets; /* tasklets of the program (entries of tasklet_times) */
    struct emu_tasklet_times tasklet_times[EMU_MAX_TASKLETS]; /* the last launch's breakdown */
    uint32_t trace_requested;     /* the host asks for the next launch's timeline */
    uint32_t trace_len;           /* events the last traced launch recorded */
    uint32_t trace_dropped;       /* events it left out (the buffer was full) */
    char fault[EMU_FAULT_SIZE];
    char log[EMU_LOG_SIZE];
    struct emu_trace_event trace[EMU_TRACE_EVENTS]; /* touched only by traced launches */
};

struct emu_control {
    _Atomic uint32_t generation; /* futex: bumped (and woken) when a slot changes state */
    _Atomic uint32_t running;    /* number of slots in EMU_RUNNING */
    uint32_t nr_dpus;
    _Atomic uint32_t wake_each; /* the host waits on a subset: wake it at every change */
    /* from the profile, for the workers */
    uint32_t strict;       /* a broken DMA rule faults instead of warning */
    uint32_t shuffle;      /* vary the interleaving at every switch point */
    uint64_t shuffle_seed;
    uint32_t print_faults; /* a fault is also printed on stderr */
    uint32_t wram_size;    /* the chip version's WRAM, in bytes */
    _Atomic uint64_t warned[EMU_WARNED_SLOTS]; /* hashes of (rule, file, line) warned about */
    _Atomic uint32_t faults_printed; /* faults printed on stderr since the last launch */
    struct emu_slot slots[];
};

/* Workers sleep on their rank's launch word, each with its bit of the futex bitset, so
 * that one wake starts every DPU a launch has in the rank and none of the others (two
 * workers share a bit: an idle one may wake, see its command_seq unchanged, and sleep). */
static inline _Atomic uint32_t *emu_launch_word(struct emu_control *control, uint32_t slot)
{
    return &control->slots[slot - slot % EMU_DPUS_PER_RANK].launches;
}

static inline uint32_t emu_launch_bit(uint32_t slot)
{
    return 1u << (slot % 32u);
}

static inline uint64_t emu_control_size(uint32_t nr_dpus)
{
    return sizeof(struct emu_control) + (uint64_t)nr_dpus * sizeof(struct emu_slot);
}

#endif
