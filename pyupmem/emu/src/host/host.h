/* host.h: the host library's internal structures. An allocation owns its ranks and
 * DPUs, one control block (shared with the workers) and one MRAM memfd holding every
 * DPU's 64 MiB. Each dpu_load creates a program (struct dpu_program_t) with its own
 * WRAM memfd and zygote process. */
#ifndef PYUPMEM_HOST_H
#define PYUPMEM_HOST_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "control.h"
#include "dpu.h"

struct emu_symbol {
    char *name;
    uint32_t address; /* DPU address: WRAM offset, or MRAM address from 0x08000000 */
    uint32_t size;
    bool local; /* a static variable; a global of the same name wins */
};

struct dpu_program_t {
    struct emu_allocation *allocation;
    struct dpu_program_t *next; /* the allocation's programs, freed with it */
    struct emu_symbol *symbols; /* sorted by name */
    uint32_t nr_symbols;
    uint32_t nr_tasklets;
    /* WRAM the program needs on a DPU: read-only data, variables and stacks, summed as
     * toolchain/check_memory.py sums them at build time */
    uint32_t wram_needed, wram_stacks;
    uint64_t wram_vaddr;  /* page-aligned start of the program's writable segment */
    uint64_t wram_stride; /* page-aligned size of that segment: one DPU's WRAM image */
    uint8_t *mram_image;  /* initial content of the MRAM variables */
    uint32_t mram_image_size;
    /* the running instance */
    uint32_t first, count; /* the DPUs it was loaded on (allocation indices) */
    int wram_fd;
    uint8_t *wram; /* count x wram_stride, mapped */
    pid_t zygote;
};

struct dpu_t {
    struct emu_allocation *allocation;
    struct dpu_rank_t *rank;
    uint32_t index; /* in the allocation */
    uint32_t member; /* in the rank */
    struct dpu_program_t *program;
    void *xfer_buffer;
};

struct dpu_rank_t {
    struct emu_allocation *allocation;
    uint32_t id;
    uint32_t first_dpu;
    uint32_t nr_dpus;
    pthread_mutex_t lock; /* dpu_lock_rank; zeroed memory is an unlocked mutex (glibc) */
};

/* A DPU chip version's figures (profile key chipVersion), from UPMEM's SDK documentation
 * ("Programming with the UPMEM DPU") and the DPU compiler's DPUCharacteristics.h. */
struct emu_chip {
    const char *name;
    uint32_t clock_mhz;    /* nominal frequency */
    uint32_t max_tasklets; /* hardware threads */
    uint32_t wram_size;    /* bytes */
    uint32_t iram_instructions;
};

/* What a profile string (and the environment variables standing in for its keys) sets. */
struct emu_profile {
    uint32_t nr_ranks;      /* nrRanks: the emulated system's size */
    bool sg_enable;         /* sgXferEnable: scatter-gather transfers allowed */
    uint32_t sg_max_blocks; /* sgXferMaxBlocksPerDpu */
    bool strict;            /* emuStrict / PYUPMEM_EMU_STRICT: broken DMA rules fault */
    bool shuffle;           /* emuSchedule=shuffle:SEED / PYUPMEM_EMU_SCHEDULE */
    uint64_t shuffle_seed;
    uint32_t clock_mhz;     /* clockMHz, else the chip version's: the modelled DPU clock */
    uint32_t explicit_clock_mhz; /* clockMHz as given (0: none) */
    const struct emu_chip *chip; /* chipVersion: v1A (default) or v1B */
    bool print_faults;      /* emuPrintFaults: a fault is also printed on stderr */
};

/* hwtime.c: the estimate of the host's calls on hardware, by PrIM phase. */
enum emu_phase { EMU_PHASE_CPU_DPU, EMU_PHASE_KERNEL, EMU_PHASE_INTER_DPU, EMU_PHASE_DPU_CPU, EMU_PHASES };
extern const char *const emu_phase_names[EMU_PHASES];
struct emu_phase_times {
    double emulated_s[EMU_PHASES];  /* wall time here */
    double estimated_s[EMU_PHASES]; /* the time model's estimate on hardware */
    uint64_t calls[EMU_PHASES];
};
/* Kinds of host transfer (the values of dpu_emu_transfer_seconds's `kind`). */
enum emu_transfer {
    EMU_XFER_PARALLEL_TO = 0,   /* dpu_push_xfer to the DPUs, each its own buffer */
    EMU_XFER_PARALLEL_FROM = 1, /* dpu_push_xfer from the DPUs */
    EMU_XFER_BROADCAST = 2,     /* the same bytes to every DPU (dpu_broadcast_to, dpu_copy_to) */
    EMU_XFER_SERIAL_TO = 3,     /* dpu_copy_to on one DPU */
    EMU_XFER_SERIAL_FROM = 4,   /* dpu_copy_from (one DPU) */
    EMU_XFER_WRAM = 8,          /* or'd in: the symbol is in WRAM (read through the control interfaces) */
};

/* A dpu_set_t resolved to a contiguous range of one allocation's DPUs. */
struct emu_range {
    struct emu_allocation *allocation;
    uint32_t first;
    uint32_t count;
};

struct emu_allocation {
    struct emu_profile profile;
    uint32_t nr_dpus;
    uint32_t nr_ranks;
    uint32_t first_rank_id;
    struct dpu_rank_t *ranks;
    struct dpu_rank_t **rank_list; /* what dpu_set_t.list.ranks points into */
    struct dpu_t *dpus;
    struct emu_control *control;
    uint64_t control_size;
    int control_fd;
    int mram_fd;
    uint8_t *mram; /* nr_dpus x 64 MiB, mapped */
    struct dpu_program_t *programs;
    double launched_ns;     /* CLOCK_MONOTONIC of the last launch */
    struct emu_range launched; /* the DPUs of the last launch */
    bool launch_unreported; /* its end is still to be accounted (and printed) */
    double kernel_ended_ns; /* when the host saw the last launch end (0: none yet) */
    double transfer_ns_since_kernel; /* wall time of the transfers since then */
    struct emu_phase_times times;
};

dpu_error_t emu_resolve(struct dpu_set_t set, struct emu_range *range);
/* emu_resolve for calls that need a single-DPU set: DPU_ERR_INVALID_DPU_SET otherwise. */
dpu_error_t emu_resolve_one(struct dpu_set_t set, struct emu_range *range);
struct emu_slot *emu_slot(struct emu_allocation *allocation, uint32_t index);
const struct emu_symbol *emu_find_symbol(const struct dpu_program_t *program, const char *name);

/* alloc.c: an anonymous shared file of `size` bytes, its descriptor at 10 or above
 * (below are those a zygote receives), close-on-exec; -1 on failure. */
int emu_memfd(const char *name, uint64_t size);

/* management.c: the program every DPU of the range runs (NO_PROGRAM_LOADED or
 * DIFFERENT_DPU_PROGRAMS otherwise). */
dpu_error_t emu_common_program(struct emu_range range, struct dpu_program_t **program);

/* unsupported.c: what a function the emulator has no meaning for returns (DPU_ERR_INTERNAL),
 * after saying once on stderr which function and what to do instead. */
dpu_error_t emu_unsupported(const char *function, const char *instead);

/* profile.c */
dpu_error_t emu_parse_profile(const char *text, struct emu_profile *profile);
uint32_t emu_system_nr_ranks(void);

/* load.c */
void emu_release_program(struct dpu_program_t *program);

/* elf.c */
dpu_error_t emu_read_program(const uint8_t *image, size_t size, struct dpu_program_t *program);

double emu_now_ns(void);
double emu_transfer_seconds(enum emu_transfer kind, uint64_t bytes_per_dpu, uint32_t dpus_per_rank,
                            uint32_t nr_ranks);
double emu_launch_overhead_seconds(uint32_t dpus_per_rank);
/* A transfer of `bytes_per_dpu` to or from the range's DPUs (only those with a prepared
 * buffer when `prepared_only`) that began at `started_ns`. */
void emu_account_transfer(struct emu_range range, enum emu_transfer kind, uint64_t bytes_per_dpu,
                          bool prepared_only, double started_ns);
void emu_account_launch_start(struct emu_range range);
void emu_account_launch_end(struct emu_allocation *allocation);
/* The range's last launch on hardware: the slowest DPU's cycles and the launch overhead. */
double emu_kernel_estimate_seconds(struct emu_range range, uint64_t *cycles, bool *counted);

/* launch.c */
dpu_error_t emu_wait(struct emu_range range, bool for_load, uint32_t timeout_ms);
void emu_stop_workers(struct emu_allocation *allocation, uint32_t first, uint32_t count);
void emu_reap_zygotes(struct emu_allocation *allocation, bool block);

#endif
