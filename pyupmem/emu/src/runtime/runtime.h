/* runtime.h: the DPU runtime's internal interface (libdpurt.so). A worker process
 * is one DPU; its tasklets are coroutines on one thread, switching at the points where
 * the hardware would let another tasklet run (a DMA, a wait), in the order of their
 * modelled clocks (tasklets.c). */
#ifndef PYUPMEM_RUNTIME_H
#define PYUPMEM_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <sys/types.h>

#include "control.h"

struct dpurt_state {
    struct emu_slot *slot;       /* this DPU's control slot */
    uint32_t nr_tasklets;
    uint32_t wram_used;          /* bytes of WRAM taken by the program's data and variables */
    uint32_t stacks_size;        /* bytes of WRAM taken by the tasklets' stacks */
    uint32_t wram_size;          /* the chip's WRAM, in bytes */
    unsigned current;            /* running tasklet */
    bool strict;                 /* a broken DMA rule faults instead of warning */
    bool shuffle;                /* a seeded random choice at every switch point */
    uint64_t shuffle_seed;
    uint64_t dma_free;           /* modelled cycle at which the DMA engine is free */
    uint64_t launch_cycles;      /* modelled cycles of the last launch */
    uint64_t instructions;       /* DPU instructions the launch issued so far (all tasklets) */
    uint64_t met_at;             /* modelled cycle at which every tasklet last met */
    uint64_t met_instructions;   /* `instructions` then */
    uint64_t dma_words;          /* 8-byte words the DMA engine moved this launch */
    uint64_t met_dma_words;      /* `dma_words` when every tasklet last met */
    bool counting;               /* the program counts its instructions (cost counting) */
};

extern struct dpurt_state __dpurt;

/* loader.c: the loaded DPU program (an x32 image: every address fits in 32 bits). */
struct dpu_image {
    uint32_t entry;                     /* the program's main (dpu_main) */
    uint32_t import_table;              /* the table the loader fills (imports.def) */
    uint32_t runtime_stack;             /* a uint64_t: the running tasklet's runtime stack */
    uint32_t instructions;              /* a uint64_t: the published instruction count */
    uint32_t text_start, text_end;      /* the program's own code (preemptible) */
    uint32_t wram_start, wram_end;      /* its WRAM: read-only data and variables */
    uint32_t stack_sizes;               /* unsigned[24]: each tasklet's stack, in bytes */
    uint32_t cost_counted;              /* non-zero: the program counts its instructions */
    uint32_t flat_mram;                 /* non-zero: C++ code, with MRAM in the ordinary space */
};
extern struct dpu_image __dpurt_image;
/* Maps the program in `fd` at its addresses and links it to the runtime; -1 and `error`
 * when it cannot. */
int __dpurt_load_image(int fd, char *error, size_t size);
/* The descriptor of the program's file, for the fault report's addr2line. */
extern int __dpurt_program_fd;

/* tasklets.c: the scheduler and the time model */
void __dpurt_tasklets_init(void);
void __dpurt_run_launch(void);
/* Charges the running tasklet `instructions` DPU instructions of runtime code that the
 * DPU would run in its place (the emulator's own code is not counted); only for programs
 * that count their instructions. */
void __dpurt_charge(uint32_t instructions);
/* The running tasklet's modelled clock, in DPU cycles. */
uint64_t __dpurt_clock(void);
/* The DPU's clock as the running tasklet sees it: its own clock, or, when it is the last
 * one running, later if the DPU's one instruction per cycle is the bound (more than 11
 * busy tasklets). */
uint64_t __dpurt_dpu_clock(void);
/* DMA latency, in cycles before the per-byte part (published characterisation). */
#define DMA_READ_LATENCY 77u
#define DMA_WRITE_LATENCY 61u
/* A DMA of `bytes` on the DPU's one engine: the tasklet waits `latency` + bytes / 2
 * cycles after the engine is free; a switch point. */
void __dpurt_dma(uint32_t latency, uint32_t bytes);
/* Waits until no runnable tasklet is behind the running one in modelled time, so that
 * what it does next (a DMA, a mutex acquisition) happens in modelled-time order. */
void __dpurt_turn(void);
/* The second half of __dpurt_dma, for a caller that copies after its __dpurt_turn: book
 * the engine and let the others run. */
void __dpurt_dma_booked(uint32_t latency, uint32_t bytes);
/* Blocks the running tasklet on `object` until __dpurt_wake(object); the caller then
 * re-checks its condition. A tasklet that `spins` (a mutex) keeps issuing instructions
 * meanwhile; the others sleep. */
void __dpurt_block(const void *object, const char *primitive, bool spins);
/* Advances the running tasklet's clock to `until` (if later), waiting for another
 * tasklet: spinning (issuing) or asleep. */
void __dpurt_wait_until(uint64_t until, bool spins);
/* Makes every tasklet blocked on `object` runnable. */
void __dpurt_wake(const void *object);
/* Wakes every tasklet blocked on `object`, the caller and they all leaving at the latest
 * of their modelled clocks (a barrier). */
void __dpurt_release_together(const void *object);
/* Whether `pc` lies in the DPU program's own code (not libc's or this runtime's). */
bool __dpurt_in_program_text(uintptr_t pc);
/* Whether `address` lies in the guard page below a tasklet's DPU stack (a stack overflow),
 * and whose, and the stack's size. */
bool __dpurt_in_stack_guard(const void *address, unsigned *tasklet, uint32_t *stack_size);
/* The return address of the program's call that led into the runtime or the C library,
 * from the stack pointer `sp` of the code that runs; 0 when it cannot tell. */
uintptr_t __dpurt_program_return_address(uintptr_t sp);

/* pace.c: the pipeline's shared pace. A tasklet issues at most one instruction every 11
 * cycles (the pipeline's depth), the DPU one per cycle: while k tasklets compete, each
 * issues one every max(11, k) cycles. */
#define PIPELINE_INTERVAL 11u
static inline uint64_t shared_pace(unsigned competing)
{
    return competing > PIPELINE_INTERVAL ? competing : PIPELINE_INTERVAL;
}
/* A launch starts: `tasklets` tasklets, none idle. */
void __dpurt_pace_reset(unsigned tasklets);
/* Tasklet `id` does not compete for the pipeline in [from, until) (empty: it competes
 * throughout; `until` UINT64_MAX: from `from` on). The only way to set a stretch. */
void __dpurt_pace_set_idle(unsigned id, uint64_t from, uint64_t until);
uint64_t __dpurt_pace_idle_from(unsigned id);
/* Every tasklet met at `at_cycle` (a barrier of all of them released): every stretch
 * ends by then, and no tasklet issues before it any more. */
void __dpurt_pace_all_met(uint64_t at_cycle);
/* Whether `at` lies in tasklet `id`'s idle stretch. */
bool __dpurt_pace_idle_at(unsigned id, uint64_t at);
/* When tasklet `self`, issuing from `start`, has issued `n` instructions, at the pace the
 * others' idle stretches give (beyond what is known of them, they compete). */
uint64_t __dpurt_pace_issue_end(unsigned self, uint64_t start, uint64_t n);

/* sync.c */
void __dpurt_sync_reset(void);

/* stdio.c: the program's printf (its va_list is the 32-bit program's), puts, putchar */
struct x32_va_list;
int __dpurt_vprintf(const char *format, struct x32_va_list *arguments);
int dpu_puts(const char *text);
int dpu_putchar(int c);

/* print_cost.c: what a print costs the DPU (the SDK's stdio.c): the work of one print, and
 * its lock around the emulator's own printing. */
struct print_work {
    uint32_t instructions;
    uint32_t flushes; /* 8-byte DMAs of its cache to the log buffer */
};
/* `string_bytes`: the bytes of its %s arguments, each one's NUL too. */
struct print_work __dpurt_printf_work(const char *format, uint32_t string_bytes);
struct print_work __dpurt_puts_work(const char *text);
struct print_work __dpurt_putchar_work(void);
void __dpurt_print_begin(void);
void __dpurt_print_end(struct print_work work);

/* fault.c */
/* abort() of the program: a fault at its call. */
void __dpurt_abort(void) __attribute__((noreturn));
void __dpurt_fault(const char *file, int line, const char *format, ...)
    __attribute__((noreturn, format(printf, 3, 4)));
void __dpurt_install_fault_handlers(void);
/* A fault of the whole DPU, not of one tasklet (the message names the tasklets). */
void __dpurt_fault_dpu(const char *format, ...) __attribute__((noreturn, format(printf, 1, 2)));
void __dpurt_log_append(const char *text, size_t length);
void __dpurt_launch_finished(uint32_t final_state);
/* Prints a warning once per (rule, source line) for the whole process. Warnings and faults
 * name the program's function (of its call into the runtime) and the file and line given,
 * else the line table's. */
void __dpurt_warn_once(const char *rule, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
struct dpurt_location;
/* The same at a place already known (a trapped instruction's). */
void __dpurt_warn_once_at(const char *rule, const struct dpurt_location *where, const char *format,
                          ...) __attribute__((format(printf, 3, 4)));
void __dpurt_fault_at(const struct dpurt_location *where, const char *format, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* address_spaces.c: MRAM through gs; an ordinary access at an MRAM address reaches WRAM at
 * its low 16 bits, as on a DPU */
extern char *__dpurt_mram; /* where this DPU's MRAM lies in the worker (DPU address 0x08000000) */
extern volatile sig_atomic_t __dpurt_stepping; /* an instruction is being single-stepped */
void __dpurt_map_mram(int mram_fd, uint32_t slot_index, bool in_flat_space);
/* Keeps this DPU's WRAM memfd, for the pages an ordinary MRAM access maps for a moment. */
void __dpurt_keep_wram(int fd, off_t offset, uintptr_t start, size_t bytes);
/* SIGSEGV at `address`: true when it was an ordinary access at an MRAM address, now being
 * stepped; SIGTRAP: true when that step is done. */
bool __dpurt_plain_mram_access(const void *address, void *context);
bool __dpurt_step_done(void *context);
/* SIGSEGV below 64 KiB: a null or stray pointer, a DPU WRAM address; true when the access is
 * being stepped onto this DPU's WRAM. */
bool __dpurt_low_address_access(const void *address, void *context);
/* A launch starts: MRAM pages mapped onto WRAM by the last one trap again. */
void __dpurt_unalias_mram(void);
/* Whether `address` (a faulting host address) is in the window of __seg_gs, MRAM's own
 * address space, outside MRAM; its address there in `mram_address`. */
bool __dpurt_outside_mram(const void *address, uint32_t *mram_address);
/* Where the program's code at `pc` is in its source (fault.c); false when unknown. */
struct dpurt_location {
    char function[64];
    char file[256]; /* its name, without folders, or the path the program's __FILE__ gives */
    int line;
};
bool __dpurt_locate_pc(uintptr_t pc, struct dpurt_location *where);

/* perfcounter.c: the monotonic clock, in nanoseconds */
uint64_t __dpurt_now_ns(void);
/* A launch starts: the performance counter counts from 0. */
void __dpurt_perfcounter_reset(void);

/* memory.c */
void __dpurt_heap_init(void);
/* The DMA of a direct MRAM access: kind 1 a read, 2 a write, 3 both. */
void __dpurt_direct_mram(uint32_t kind);

#endif
