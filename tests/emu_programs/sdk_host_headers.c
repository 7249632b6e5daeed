/* The host headers dpu_config.h, dpu_custom.h, dpu_debug.h, dpu_loader.h and
 * dpu_profiler.h: every function they declare, called on one emulated DPU; prints
 * name=value lines that test_emu_sdk_headers.py checks. */
#include <stdio.h>
#include <stdlib.h>

#include <dpu.h>
#include <dpu_config.h>
#include <dpu_custom.h>
#include <dpu_debug.h>
#include <dpu_loader.h>
#include <dpu_management.h>
#include <dpu_profiler.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    struct dpu_set_t set, each;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    struct dpu_t *dpu = NULL;
    DPU_FOREACH (set, each)
        dpu = dpu_from_set(each);
    struct dpu_rank_t *rank = dpu_get_rank(dpu);

    printf("reset_rank=%d\n", dpu_reset_rank(rank));
    printf("reset_dpu=%d\n", dpu_reset_dpu(dpu));

    printf("custom_rank=%d\n", dpu_custom_for_rank(rank, DPU_COMMAND_ALL_PREEXECUTION, NULL));
    printf("custom_dpu=%d\n", dpu_custom_for_dpu(dpu, DPU_COMMAND_EVENT_START, NULL));
    printf("custom_null=%d\n", dpu_custom_for_dpu(NULL, DPU_COMMAND_EVENT_END, NULL));
    printf("custom_unknown=%d\n", dpu_custom_for_rank(rank, (dpu_custom_command_t)99, NULL));

    struct dpu_context_t context;
    printf("fill_context=%d\n", dpu_context_fill_from_rank(&context, rank));
    printf("context_threads=%u\n", context.info.nr_threads);
    printf("context_registers=%u\n", context.info.nr_registers);
    printf("context_atomic_bits=%u\n", context.info.nr_atomic_bits);
    printf("context_mram=%u\n", (unsigned)context.info.mram_size);
    printf("context_wram_words=%u\n", (unsigned)context.info.wram_size);
    context.registers[context.info.nr_threads * context.info.nr_registers - 1] = 7; /* sized */
    context.pcs[context.info.nr_threads - 1] = 1;
    printf("context_zeroed=%d\n", context.carry_flags[0] == 0 && context.scheduling[0] == 0);
    printf("extract_pcs=%d\n", dpu_extract_pcs_for_dpu(dpu, &context));
    printf("extract_context=%d\n", dpu_extract_context_for_dpu(dpu, &context));
    printf("restore_context=%d\n", dpu_restore_context_for_dpu(dpu, &context));
    printf("init_fault=%d\n", dpu_initialize_fault_process_for_dpu(dpu, &context, 0));
    printf("finalize_fault=%d\n", dpu_finalize_fault_process_for_dpu(dpu, &context));
    printf("step=%d\n", dpu_execute_thread_step_in_fault_for_dpu(dpu, 0, &context));
    printf("slice_info=%d\n", dpu_set_debug_slice_info(rank, 0, 0, 0, 0));
    printf("restore_mux=%d\n", dpu_restore_mux_context_for_rank(rank));
    printf("save_rank=%d\n", dpu_save_context_for_rank(rank));
    printf("restore_rank=%d\n", dpu_restore_context_for_rank(rank));
    printf("core_dump=%d\n",
           dpu_create_core_dump(rank, argv[1], "core", &context, NULL, NULL, NULL, 0, 0, 0));
    dpu_free_dpu_context(&context);
    printf("context_freed=%d\n", context.registers == NULL && context.pcs == NULL);
    struct dpu_context_t *debug = &context;
    printf("pop=%d\n", dpu_pop_debug_context(dpu, &debug));
    printf("pop_null=%d\n", debug == NULL);

    struct _dpu_loader_context_t loader;
    loader.nr_of_instructions = 5;
    dpu_loader_fill_dpu_context(&loader, dpu);
    printf("loader_dpu=%d\n", loader.env.target == DPU_LOADER_TARGET_DPU && loader.env.dpu == dpu &&
                                  loader.patch_wram == NULL && loader.nr_of_instructions == 0);
    dpu_loader_fill_rank_context(&loader, rank);
    printf("loader_rank=%d\n", loader.env.target == DPU_LOADER_TARGET_RANK && loader.env.rank == rank);
    printf("elf_load=%d\n", dpu_elf_load(NULL, &loader));

    dpu_profiling_context_t profiling = dpu_get_profiling_context(rank);
    printf("profiling_type=%d\n", profiling ? (int)profiling->enable_profiling : -1);
    printf("profiling_null=%d\n", dpu_get_profiling_context(NULL) == NULL);
    printf("fill_profiling=%d\n", dpu_fill_profiling_info(rank, 0, 0, 0, 0, NULL));
    printf("patch_profiling=%d\n", dpu_patch_profiling_for_dpu(dpu, NULL, 0, 0, true));
    printf("magic_profiling=%d\n", dpu_set_magic_profiling_for_dpu(dpu));
    uint32_t nothing = 0;
    dpu_collect_statistics_profiling(dpu, 1, &nothing);
    dpu_collect_samples_profiling(dpu, 0);
    dpu_dump_statistics_profiling(dpu, 1);
    dpu_dump_samples_profiling(dpu);
    dpu_dump_section_profiling(dpu, 1, "section", &nothing, 0);

    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_ASSERT(dpu_free(set));
    printf("OK\n");
    return 0;
}
