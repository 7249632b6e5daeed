/* dpu.h: the host interface of UPMEM's libdpu, as implemented by the pyupmem
 * emulator. Types, layouts, enum values and error codes match the SDK
 * (2024.2 / 2025.1) so that host programs written for the SDK build unchanged. The C++ API
 * is dpu.hpp; the other SDK host headers (dpu_log.h, dpu_management.h ...) sit beside it. */
#ifndef DPU_H
#define DPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>

/* What the SDK's dpu.h includes, so that programs relying on it build. */
#include <dpu_checkpoint.h>
#include <dpu_error.h>
#include <dpu_types.h>
#include <dpu_macro_utils.h>
#include <dpu_fifo.h>
#include <dpu_bank_interface_pmc.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DPU_ALLOCATE_ALL UINT_MAX

typedef enum _dpu_launch_policy_t { DPU_ASYNCHRONOUS = 0, DPU_SYNCHRONOUS = 1 } dpu_launch_policy_t;
typedef enum _dpu_xfer_t { DPU_XFER_TO_DPU = 0, DPU_XFER_FROM_DPU = 1 } dpu_xfer_t;
typedef enum _dpu_xfer_flags_t {
    DPU_XFER_DEFAULT = 0,
    DPU_XFER_NO_RESET = 1,
    DPU_XFER_ASYNC = 2,
    DPU_XFER_PARALLEL = 4,
} dpu_xfer_flags_t;
/* Scatter-gather transfers complete before the call returns in the emulator, ASYNC or not.
 * DISABLE_LENGTH_CHECK lets a DPU's blocks add up to less than the length; on a transfer to
 * the DPUs the rest of the MRAM range is then zero-filled. */
typedef enum _dpu_sg_xfer_flags_t {
    DPU_SG_XFER_DEFAULT = 0,
    DPU_SG_XFER_ASYNC = 1 << 1,
    DPU_SG_XFER_DISABLE_LENGTH_CHECK = 1 << 2,
} dpu_sg_xfer_flags_t;
typedef enum _dpu_callback_flags_t {
    DPU_CALLBACK_DEFAULT = 0,
    DPU_CALLBACK_ASYNC = 1,
    DPU_CALLBACK_NONBLOCKING = 2,
    DPU_CALLBACK_SINGLE_CALL = 4,
    DPU_CALLBACK_PARALLEL = 8,
} dpu_callback_flags_t;

struct dpu_set_rank_iterator_t {
    struct dpu_set_t *set;
    uint32_t count;
    uint32_t next_idx;
    bool has_next;
    struct dpu_set_t next;
};

struct dpu_set_dpu_iterator_t {
    struct dpu_set_rank_iterator_t rank_iterator;
    uint32_t count;
    uint32_t next_idx;
    bool has_next;
    struct dpu_set_t next;
};

dpu_error_t dpu_alloc(uint32_t nr_dpus, const char *profile, struct dpu_set_t *dpu_set);
dpu_error_t dpu_alloc_ranks(uint32_t nr_ranks, const char *profile, struct dpu_set_t *dpu_set);
dpu_error_t dpu_free(struct dpu_set_t dpu_set);
dpu_error_t dpu_get_nr_ranks(struct dpu_set_t dpu_set, uint32_t *nr_ranks);
dpu_error_t dpu_get_nr_dpus(struct dpu_set_t dpu_set, uint32_t *nr_dpus);

struct dpu_set_rank_iterator_t dpu_set_rank_iterator_from(struct dpu_set_t *set);
void dpu_set_rank_iterator_next(struct dpu_set_rank_iterator_t *iterator);
struct dpu_set_dpu_iterator_t dpu_set_dpu_iterator_from(struct dpu_set_t *set);
void dpu_set_dpu_iterator_next(struct dpu_set_dpu_iterator_t *iterator);

dpu_error_t dpu_load(struct dpu_set_t dpu_set, const char *binary_path, struct dpu_program_t **program);
dpu_error_t dpu_load_from_memory(struct dpu_set_t dpu_set, uint8_t *buffer, size_t buffer_size,
                                 struct dpu_program_t **program);
dpu_error_t dpu_load_from_incbin(struct dpu_set_t dpu_set, struct dpu_incbin_t *incbin,
                                 struct dpu_program_t **program);
dpu_error_t dpu_get_symbol(struct dpu_program_t *program, const char *symbol_name,
                           struct dpu_symbol_t *symbol);

dpu_error_t dpu_launch(struct dpu_set_t dpu_set, dpu_launch_policy_t policy);
dpu_error_t dpu_status(struct dpu_set_t dpu_set, bool *done, bool *fault);
dpu_error_t dpu_sync(struct dpu_set_t dpu_set);

dpu_error_t dpu_copy_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                        const void *src, size_t length);
dpu_error_t dpu_copy_from(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                          void *dst, size_t length);
dpu_error_t dpu_copy_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol,
                               uint32_t symbol_offset, const void *src, size_t length);
dpu_error_t dpu_copy_from_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol,
                                 uint32_t symbol_offset, void *dst, size_t length);
dpu_error_t dpu_prepare_xfer(struct dpu_set_t dpu_set, void *buffer);
/* Scatter-gather transfers (SDK 2024+): for each DPU of the set (dpu_index counts from 0 in
 * DPU_FOREACH order), get_block_info->f(&block, dpu_index, block_index, args) is called for
 * block_index 0, 1, ... until it returns false; the blocks are moved to (or from)
 * consecutive MRAM bytes from the symbol plus offset. The set must come from an allocation
 * whose profile has sgXferEnable=true (else DPU_ERR_SG_NOT_ACTIVATED), and be a set of ranks:
 * a single DPU (DPU_SET_DPU) gives DPU_ERR_INTERNAL, as in the SDK. More blocks than
 * sgXferMaxBlocksPerDpu: DPU_ERR_SG_TOO_MANY_BLOCKS; blocks not adding up to length (more
 * than length, or less without DPU_SG_XFER_DISABLE_LENGTH_CHECK): DPU_ERR_SG_LENGTH_MISMATCH;
 * a WRAM or IRAM symbol: DPU_ERR_SG_NOT_MRAM_SYMBOL. Every DPU's blocks are checked before
 * any byte moves. */
struct sg_block_info {
    uint8_t *addr;
    uint32_t length;
};
typedef bool (*get_block_func_t)(struct sg_block_info *out, uint32_t dpu_index, uint32_t block_index,
                                 void *args);
typedef struct get_block_t {
    get_block_func_t f;
    void *args;
    size_t args_size; /* the SDK copies args for asynchronous transfers; the emulator has none */
} get_block_t;

dpu_error_t dpu_push_sg_xfer(struct dpu_set_t dpu_set, dpu_xfer_t xfer, const char *symbol_name,
                             uint32_t symbol_offset, size_t length, get_block_t *get_block_info,
                             dpu_sg_xfer_flags_t flags);
dpu_error_t dpu_push_sg_xfer_symbol(struct dpu_set_t dpu_set, dpu_xfer_t xfer, struct dpu_symbol_t symbol,
                                    uint32_t symbol_offset, size_t length, get_block_t *get_block_info,
                                    dpu_sg_xfer_flags_t flags);
dpu_error_t dpu_push_xfer(struct dpu_set_t dpu_set, dpu_xfer_t xfer, const char *symbol_name,
                          uint32_t symbol_offset, size_t length, dpu_xfer_flags_t flags);
dpu_error_t dpu_push_xfer_symbol(struct dpu_set_t dpu_set, dpu_xfer_t xfer, struct dpu_symbol_t symbol,
                                 uint32_t symbol_offset, size_t length, dpu_xfer_flags_t flags);
dpu_error_t dpu_broadcast_to(struct dpu_set_t dpu_set, const char *symbol_name, uint32_t symbol_offset,
                             const void *src, size_t length, dpu_xfer_flags_t flags);
dpu_error_t dpu_broadcast_to_symbol(struct dpu_set_t dpu_set, struct dpu_symbol_t symbol,
                                    uint32_t symbol_offset, const void *src, size_t length,
                                    dpu_xfer_flags_t flags);
/* WRAM FIFOs (see dpu_fifo.h): the emulator has none; both return DPU_ERR_INTERNAL. */
dpu_error_t dpu_fifo_prepare_xfer(struct dpu_set_t dpu_set, struct dpu_fifo_link_t *fifo_link, void *buffer);
dpu_error_t dpu_fifo_push_xfer(struct dpu_set_t dpu_set, struct dpu_fifo_link_t *fifo_link,
                               dpu_xfer_flags_t flags);
dpu_error_t dpu_callback(struct dpu_set_t dpu_set,
                         dpu_error_t (*callback)(struct dpu_set_t, uint32_t, void *), void *args,
                         dpu_callback_flags_t flags);
dpu_error_t dpu_log_read(struct dpu_set_t set, FILE *stream);
/* Also declared in dpu_error.h. Returns a string allocated with malloc: the caller may
 * free() it (SDK 2025.1). */
char *dpu_error_to_string(dpu_error_t status);

/* pyupmem's emulator defines PYUPMEM_EMULATOR and these extensions:
 * - dpu_emu_sync_timeout: dpu_sync with a time limit in milliseconds (0: none);
 *   DPU_ERR_TIMEOUT when the DPUs still run;
 * - dpu_emu_launch_cycles: the time model's estimate of each DPU's last launch, in DPU
 *   cycles, one per DPU of the set in iteration order (cycles[] must hold that many);
 *   counted[i] (may be NULL) tells whether the program counted its instructions (else
 *   the estimate has only DMA and synchronisation);
 * - dpu_emu_clock_mhz: the modelled DPU clock (profile keys clockMHz, chipVersion;
 *   default 350, v1A);
 * - dpu_emu_stop: stop the running DPUs of the set; they need dpu_load again (their
 *   WRAM is lost, MRAM is kept) before the next launch;
 * - dpu_emu_phase_seconds: emulated and estimated seconds so far of the set's allocation
 *   per PrIM phase (4 doubles each: CPU-DPU, DPU kernel, Inter-DPU, DPU-CPU; either NULL);
 * - dpu_emu_transfer_seconds: the model's estimate of one host transfer (kind 0: parallel
 *   to the DPUs, 1: parallel from them, 2: broadcast, 3: to one DPU, 4: from one DPU;
 *   plus 8 for a WRAM symbol), by the DPUs of the busiest rank and the ranks taking
 *   part; -1 for an unknown kind;
 * - dpu_emu_kernel_seconds: the set's last launch on hardware, in all and of it the
 *   launch's own cost (booting, polling);
 * - dpu_emu_launch_overhead_seconds: that cost for a launch whose busiest rank has
 *   dpus_per_rank DPUs;
 * - dpu_emu_tasklet_times: each DPU's last launch per tasklet: 24 entries per DPU of
 *   struct {uint64_t cycles[3] (compute, DMA, waits); uint64_t instructions;}, and the
 *   tasklets used in nr_tasklets[i];
 * - dpu_emu_trace: whether the set's next launches record a timeline;
 * - dpu_emu_trace_events: one DPU's timeline of its last traced launch, up to capacity
 *   events of struct {uint64_t start, end; uint32_t tasklet, activity;} (cycles from the
 *   launch's start; activity 0 compute, 1 DMA, 2 waits); count (all recorded) and
 *   dropped (those the DPU could not keep);
 * - dpu_emu_profile_error: why this thread's last dpu_alloc or dpu_alloc_ranks refused its
 *   profile (DPU_ERR_INVALID_PROFILE), naming the setting, the value and what is accepted;
 *   "" otherwise. The library also prints it to stderr unless
 *   dpu_emu_report_profile_errors(false) was called (pyupmem does: it raises it instead). */
#define PYUPMEM_EMULATOR 1
dpu_error_t dpu_emu_sync_timeout(struct dpu_set_t dpu_set, uint32_t timeout_ms);
dpu_error_t dpu_emu_launch_cycles(struct dpu_set_t dpu_set, uint64_t *cycles, bool *counted);
dpu_error_t dpu_emu_clock_mhz(struct dpu_set_t dpu_set, uint32_t *mhz);
dpu_error_t dpu_emu_stop(struct dpu_set_t dpu_set);
dpu_error_t dpu_emu_phase_seconds(struct dpu_set_t dpu_set, double *emulated, double *estimated);
double dpu_emu_transfer_seconds(uint32_t kind, uint64_t bytes_per_dpu, uint32_t dpus_per_rank,
                                uint32_t nr_ranks);
dpu_error_t dpu_emu_kernel_seconds(struct dpu_set_t dpu_set, double *seconds, double *launch_seconds);
double dpu_emu_launch_overhead_seconds(uint32_t dpus_per_rank);
dpu_error_t dpu_emu_tasklet_times(struct dpu_set_t dpu_set, uint32_t *nr_tasklets, void *times);
dpu_error_t dpu_emu_trace(struct dpu_set_t dpu_set, bool enable);
dpu_error_t dpu_emu_trace_events(struct dpu_set_t dpu_set, void *events, uint32_t capacity,
                                 uint32_t *count, uint32_t *dropped);
const char *dpu_emu_profile_error(void);
void dpu_emu_report_profile_errors(bool to_stderr);

/* Iteration: DPU_FOREACH(set, dpu) or DPU_FOREACH(set, dpu, index). */
#define _DPU_FOREACH_X(set, dpu)                                                                   \
    for (struct dpu_set_dpu_iterator_t __dpu_it = dpu_set_dpu_iterator_from(&(set));             \
         __dpu_it.has_next && (((dpu) = __dpu_it.next), 1); dpu_set_dpu_iterator_next(&__dpu_it))
#define _DPU_FOREACH_I(set, dpu, i)                                                                \
    for (struct dpu_set_dpu_iterator_t __dpu_it = dpu_set_dpu_iterator_from(&(set));             \
         __dpu_it.has_next && (((dpu) = __dpu_it.next), ((i) = __dpu_it.count), 1);              \
         dpu_set_dpu_iterator_next(&__dpu_it))
#define _DPU_RANK_FOREACH_X(set, rank)                                                             \
    for (struct dpu_set_rank_iterator_t __rank_it = dpu_set_rank_iterator_from(&(set));          \
         __rank_it.has_next && (((rank) = __rank_it.next), 1);                                     \
         dpu_set_rank_iterator_next(&__rank_it))
#define _DPU_RANK_FOREACH_I(set, rank, i)                                                          \
    for (struct dpu_set_rank_iterator_t __rank_it = dpu_set_rank_iterator_from(&(set));          \
         __rank_it.has_next && (((rank) = __rank_it.next), ((i) = __rank_it.count), 1);          \
         dpu_set_rank_iterator_next(&__rank_it))
#define _DPU_PICK(_1, _2, _3, NAME, ...) NAME
#define DPU_FOREACH(...) _DPU_PICK(__VA_ARGS__, _DPU_FOREACH_I, _DPU_FOREACH_X, _)(__VA_ARGS__)
#define DPU_RANK_FOREACH(...)                                                                      \
    _DPU_PICK(__VA_ARGS__, _DPU_RANK_FOREACH_I, _DPU_RANK_FOREACH_X, _)(__VA_ARGS__)

#define DPU_CHECK(statement, on_error)                                                            \
    do {                                                                                           \
        dpu_error_t __dpu_error = (statement);                                                     \
        if (__dpu_error != DPU_OK) {                                                               \
            char *__dpu_msg = dpu_error_to_string(__dpu_error);                                    \
            fprintf(stderr, "%s:%d(%s): DPU Error (%s)\n", __FILE__, __LINE__, __func__, __dpu_msg); \
            free(__dpu_msg);                                                                       \
            on_error;                                                                              \
        }                                                                                          \
    } while (0)
#define DPU_ASSERT(statement) DPU_CHECK(statement, exit(EXIT_FAILURE))

/* DPU_INCBIN(name, "path"): embeds a DPU program in the host executable. */
#define DPU_INCBIN(name, file)                                                                     \
    __asm__(".section .rodata\n"                                                                   \
            ".global " #name "_start\n"                                                            \
            ".balign 8\n" #name "_start:\n"                                                        \
            ".incbin \"" file "\"\n"                                                               \
            ".global " #name "_end\n" #name "_end:\n"                                              \
            ".byte 0\n"                                                                            \
            ".previous\n");                                                                        \
    extern uint8_t name##_start[], name##_end[];                                                   \
    static struct dpu_incbin_t name = {name##_start, 0, file};                                     \
    __attribute__((constructor)) static void name##_init(void)                                   \
    {                                                                                              \
        name.size = (size_t)(name##_end - name##_start);                                           \
    }

#ifdef __cplusplus
}
#endif
#endif /* DPU_H */
