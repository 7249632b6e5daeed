/* debug.c: the host headers of the SDK's debugging and tooling interfaces: dpu_config.h,
 * dpu_custom.h, dpu_debug.h, dpu_loader.h and dpu_profiler.h. A DPU here is native code
 * in a worker process: it has no registers, PCs, IRAM or profiling hardware to reach, so
 * most of these report that they are unsupported (emu_unsupported); what has a meaning
 * without them (filling structures, commands that need nothing) works. */
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include <dpu_checkpoint.h>
#include <dpu_config.h>
#include <dpu_custom.h>
#include <dpu_debug.h>
#include <dpu_description.h>
#include <dpu_loader.h>
#include <dpu_management.h>
#include <dpu_profiler.h>

/* ------------------------------------------------------------------ dpu_config.h */

#define NO_RESET "reload the DPU's program with dpu_load to reset it"

dpu_error_t dpu_reset_rank(struct dpu_rank_t *rank)
{
    (void)rank;
    return emu_unsupported("dpu_reset_rank", NO_RESET);
}

dpu_error_t dpu_reset_dpu(struct dpu_t *dpu)
{
    (void)dpu;
    return emu_unsupported("dpu_reset_dpu", NO_RESET);
}

/* ------------------------------------------------------------------ dpu_custom.h */

static dpu_error_t custom(const void *target, dpu_custom_command_t command)
{
    if (target == NULL || (unsigned)command > (unsigned)DPU_COMMAND_SET_SLICE_INFO)
        return DPU_ERR_INTERNAL;
    return DPU_OK; /* the emulator's backend needs no command */
}

dpu_error_t dpu_custom_for_rank(struct dpu_rank_t *rank, dpu_custom_command_t command,
                                dpu_custom_command_args_t args)
{
    (void)args;
    return custom(rank, command);
}

dpu_error_t dpu_custom_for_dpu(struct dpu_t *dpu, dpu_custom_command_t command,
                               dpu_custom_command_args_t args)
{
    (void)args;
    return custom(dpu, command);
}

/* ------------------------------------------------------------------ dpu_debug.h */

#define NO_DEBUG                                                                                   \
    "the emulator runs DPU code natively, with no DPU registers or PCs: debug the DPU's worker " \
    "process with gdb, or read the fault message"

dpu_error_t dpu_extract_pcs_for_dpu(struct dpu_t *dpu, struct dpu_context_t *context)
{
    (void)dpu, (void)context;
    return emu_unsupported("dpu_extract_pcs_for_dpu", NO_DEBUG);
}

dpu_error_t dpu_extract_context_for_dpu(struct dpu_t *dpu, struct dpu_context_t *context)
{
    (void)dpu, (void)context;
    return emu_unsupported("dpu_extract_context_for_dpu", NO_DEBUG);
}

dpu_error_t dpu_restore_context_for_dpu(struct dpu_t *dpu, struct dpu_context_t *context)
{
    (void)dpu, (void)context;
    return emu_unsupported("dpu_restore_context_for_dpu", NO_DEBUG);
}

dpu_error_t dpu_initialize_fault_process_for_dpu(struct dpu_t *dpu, struct dpu_context_t *context,
                                                 mram_addr_t error_store_addr)
{
    (void)dpu, (void)context, (void)error_store_addr;
    return emu_unsupported("dpu_initialize_fault_process_for_dpu", NO_DEBUG);
}

dpu_error_t dpu_finalize_fault_process_for_dpu(struct dpu_t *dpu, struct dpu_context_t *context)
{
    (void)dpu, (void)context;
    return emu_unsupported("dpu_finalize_fault_process_for_dpu", NO_DEBUG);
}

dpu_error_t dpu_execute_thread_step_in_fault_for_dpu(struct dpu_t *dpu, dpu_thread_t thread,
                                                     struct dpu_context_t *context)
{
    (void)dpu, (void)thread, (void)context;
    return emu_unsupported("dpu_execute_thread_step_in_fault_for_dpu", NO_DEBUG);
}

dpu_error_t dpu_set_debug_slice_info(struct dpu_rank_t *rank, uint32_t slice_id,
                                     uint64_t structure_value, uint64_t slice_target,
                                     dpu_bitfield_t host_mux_mram_state)
{
    (void)rank, (void)slice_id, (void)structure_value, (void)slice_target;
    (void)host_mux_mram_state;
    return emu_unsupported("dpu_set_debug_slice_info", NO_DEBUG);
}

dpu_error_t dpu_restore_mux_context_for_rank(struct dpu_rank_t *rank)
{
    (void)rank;
    return emu_unsupported("dpu_restore_mux_context_for_rank", NO_DEBUG);
}

dpu_error_t dpu_save_context_for_rank(struct dpu_rank_t *rank)
{
    (void)rank;
    return emu_unsupported("dpu_save_context_for_rank", "use dpu_checkpoint_save (dpu_checkpoint.h)");
}

dpu_error_t dpu_restore_context_for_rank(struct dpu_rank_t *rank)
{
    (void)rank;
    return emu_unsupported("dpu_restore_context_for_rank",
                           "use dpu_checkpoint_restore (dpu_checkpoint.h)");
}

dpu_error_t dpu_create_core_dump(struct dpu_rank_t *rank, const char *exe_path,
                                 const char *core_file_path, struct dpu_context_t *context,
                                 uint8_t *wram, uint8_t *mram, uint8_t *iram, uint32_t wram_size,
                                 uint32_t mram_size, uint32_t iram_size)
{
    (void)rank, (void)exe_path, (void)core_file_path, (void)context, (void)wram, (void)mram;
    (void)iram, (void)wram_size, (void)mram_size, (void)iram_size;
    return emu_unsupported("dpu_create_core_dump", NO_DEBUG);
}

void dpu_free_dpu_context(struct dpu_context_t *context)
{
    if (context != NULL)
        dpu_checkpoint_free(context);
}

dpu_error_t dpu_context_fill_from_rank(struct dpu_context_t *context, struct dpu_rank_t *rank)
{
    dpu_description_t description = dpu_get_description(rank);
    if (context == NULL || description == NULL)
        return DPU_ERR_INTERNAL;
    const struct dpu_hw_description_t *hw = &description->hw;
    memset(context, 0, sizeof(*context));
    uint32_t threads = hw->dpu.nr_of_threads;
    context->info.nr_threads = threads;
    context->info.nr_registers = hw->dpu.nr_of_work_registers_per_thread;
    context->info.nr_atomic_bits = hw->dpu.nr_of_atomic_bits;
    context->info.iram_size = (iram_size_t)hw->memories.iram_size;
    context->info.mram_size = hw->memories.mram_size;
    context->info.wram_size = hw->memories.wram_size;
    context->registers = calloc((size_t)threads * context->info.nr_registers, sizeof(uint32_t));
    context->pcs = calloc(threads, sizeof(iram_addr_t));
    context->atomic_register = calloc(context->info.nr_atomic_bits, sizeof(bool));
    context->zero_flags = calloc(threads, sizeof(bool));
    context->carry_flags = calloc(threads, sizeof(bool));
    context->scheduling = calloc(threads, sizeof(uint8_t));
    if (context->registers == NULL || context->pcs == NULL || context->atomic_register == NULL ||
        context->zero_flags == NULL || context->carry_flags == NULL || context->scheduling == NULL) {
        dpu_checkpoint_free(context);
        return DPU_ERR_SYSTEM;
    }
    return DPU_OK;
}

dpu_error_t dpu_pop_debug_context(struct dpu_t *dpu, struct dpu_context_t **debug_context)
{
    if (dpu == NULL || debug_context == NULL)
        return DPU_ERR_INTERNAL;
    *debug_context = NULL; /* the emulator keeps none */
    return DPU_OK;
}

/* ------------------------------------------------------------------ dpu_loader.h */

static void fill_loader(dpu_loader_context_t context)
{
    context->patch_iram = NULL;
    context->patch_wram = NULL;
    context->patch_mram = NULL;
    context->nr_of_instructions = 0;
    context->nr_of_wram_words = 0;
    context->nr_of_mram_bytes = 0;
    context->dummy = 0;
}

void dpu_loader_fill_dpu_context(dpu_loader_context_t context, struct dpu_t *dpu)
{
    fill_loader(context);
    context->env.target = DPU_LOADER_TARGET_DPU;
    context->env.dpu = dpu;
}

void dpu_loader_fill_rank_context(dpu_loader_context_t context, struct dpu_rank_t *rank)
{
    fill_loader(context);
    context->env.target = DPU_LOADER_TARGET_RANK;
    context->env.rank = rank;
}

dpu_error_t dpu_elf_load(dpu_elf_file_t file, dpu_loader_context_t context)
{
    (void)file, (void)context;
    emu_unsupported("dpu_elf_load",
                    "the emulator's DPU programs are host executables: load them with dpu_load");
    return DPU_ERR_ELF_INVALID_FILE;
}

/* ------------------------------------------------------------------ dpu_profiler.h */

dpu_error_t dpu_fill_profiling_info(struct dpu_rank_t *rank, iram_addr_t mcount_address,
                                    iram_addr_t ret_mcount_address,
                                    wram_addr_t thread_profiling_address,
                                    wram_addr_t perfcounter_end_value_address,
                                    dpu_elf_symbols_t *profiling_symbols)
{
    (void)mcount_address, (void)ret_mcount_address, (void)thread_profiling_address;
    (void)perfcounter_end_value_address, (void)profiling_symbols;
    return rank == NULL ? DPU_ERR_INTERNAL : DPU_OK; /* profiling is DPU_PROFILING_NOP */
}

dpu_error_t dpu_patch_profiling_for_dpu(struct dpu_t *dpu, dpuinstruction_t *source,
                                        uint32_t address, uint32_t size, bool init)
{
    (void)source, (void)address, (void)size, (void)init;
    return dpu == NULL ? DPU_ERR_INTERNAL : DPU_OK; /* nothing to patch under NOP */
}

void dpu_collect_statistics_profiling(struct dpu_t *dpu, uint8_t nr_threads,
                                      const uint32_t *profiled_address)
{
    (void)dpu, (void)nr_threads, (void)profiled_address;
}

void dpu_collect_samples_profiling(struct dpu_t *dpu, iram_addr_t profiled_address)
{
    (void)dpu, (void)profiled_address;
}

void dpu_dump_statistics_profiling(struct dpu_t *dpu, uint8_t nr_threads)
{
    (void)dpu, (void)nr_threads;
}

void dpu_dump_samples_profiling(struct dpu_t *dpu)
{
    (void)dpu;
}

dpu_error_t dpu_set_magic_profiling_for_dpu(struct dpu_t *dpu)
{
    return dpu == NULL ? DPU_ERR_INTERNAL : DPU_OK;
}

void dpu_dump_section_profiling(struct dpu_t *dpu, uint8_t nr_threads, const char *section_name,
                                const dpuword_t *section_info, uint32_t perfcounter_end_value)
{
    (void)dpu, (void)nr_threads, (void)section_name, (void)section_info;
    (void)perfcounter_end_value;
}

/* One NOP context per process: the emulator profiles no rank. */
static struct _dpu_profiling_context_t nop_profiling;

dpu_profiling_context_t dpu_get_profiling_context(struct dpu_rank_t *rank)
{
    return rank == NULL ? NULL : &nop_profiling;
}
