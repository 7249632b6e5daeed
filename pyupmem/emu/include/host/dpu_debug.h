/* dpu_debug.h: debugging a DPU (its threads' PCs, registers and flags, stepping after a
 * fault, core dumps). The emulator runs DPU code natively, so a DPU has no such state: the
 * functions that read or change it return DPU_ERR_INTERNAL and say so on stderr (use
 * gdb on the DPU's worker process, or the fault message). dpu_context_fill_from_rank
 * sizes and allocates a context as the SDK's does (the rank's threads, 24 registers per
 * thread, 256 atomic bits), dpu_free_dpu_context frees it, and dpu_pop_debug_context
 * gives NULL: the emulator keeps no debug context. */
#ifndef DPU_DEBUG_H
#define DPU_DEBUG_H

#include <stdint.h>

#include <dpu_error.h>
#include <dpu_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dpu_rank_t;
struct dpu_t;

dpu_error_t dpu_extract_pcs_for_dpu(struct dpu_t *dpu, struct dpu_context_t *context);
dpu_error_t dpu_extract_context_for_dpu(struct dpu_t *dpu, struct dpu_context_t *context);
dpu_error_t dpu_restore_context_for_dpu(struct dpu_t *dpu, struct dpu_context_t *context);
dpu_error_t dpu_initialize_fault_process_for_dpu(struct dpu_t *dpu, struct dpu_context_t *context,
                                                 mram_addr_t error_store_addr);
dpu_error_t dpu_finalize_fault_process_for_dpu(struct dpu_t *dpu, struct dpu_context_t *context);
dpu_error_t dpu_execute_thread_step_in_fault_for_dpu(struct dpu_t *dpu, dpu_thread_t thread,
                                                     struct dpu_context_t *context);
dpu_error_t dpu_set_debug_slice_info(struct dpu_rank_t *rank, uint32_t slice_id,
                                     uint64_t structure_value, uint64_t slice_target,
                                     dpu_bitfield_t host_mux_mram_state);
dpu_error_t dpu_restore_mux_context_for_rank(struct dpu_rank_t *rank);
dpu_error_t dpu_save_context_for_rank(struct dpu_rank_t *rank);
dpu_error_t dpu_restore_context_for_rank(struct dpu_rank_t *rank);
dpu_error_t dpu_create_core_dump(struct dpu_rank_t *rank, const char *exe_path,
                                 const char *core_file_path, struct dpu_context_t *context,
                                 uint8_t *wram, uint8_t *mram, uint8_t *iram, uint32_t wram_size,
                                 uint32_t mram_size, uint32_t iram_size);
void dpu_free_dpu_context(struct dpu_context_t *context);
dpu_error_t dpu_context_fill_from_rank(struct dpu_context_t *context, struct dpu_rank_t *rank);
dpu_error_t dpu_pop_debug_context(struct dpu_t *dpu, struct dpu_context_t **debug_context);

#ifdef __cplusplus
}
#endif

#endif /* DPU_DEBUG_H */
