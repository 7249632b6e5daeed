/* A host program that includes every SDK host header the emulator ships and calls into
 * each: management, memory, program, runner, log, probe, checkpoint and the
 * scatter-gather and FIFO transfers of dpu.h. It prints name=value lines the test reads;
 * it must build with -Wall -Wextra -Werror. Argument: the DPU program (sg_kernel.c). */
#include <dpu.h>
#include <dpu_bank_interface_pmc.h>
#include <dpu_checkpoint.h>
#include <dpu_description.h>
#include <dpu_elf.h>
#include <dpu_error.h>
#include <dpu_fifo.h>
#include <dpu_log.h>
#include <dpu_log_internals.h>
#include <dpu_macro_utils.h>
#include <dpu_management.h>
#include <dpu_memory.h>
#include <dpu_probe.h>
#include <dpu_program.h>
#include <dpu_runner.h>
#include <dpu_target.h>
#include <dpu_target_macros.h>
#include <dpu_transfer_matrix.h>
#include <dpu_types.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NR_DPUS 4
#define WORDS 16 /* 128 bytes per DPU */

/* Per DPU: three host blocks (24 + 40 + 64 bytes), the second half of the data. */
struct sg_args {
    uint64_t data[NR_DPUS][WORDS];
    uint32_t nr_blocks; /* blocks to hand out per DPU */
    uint32_t short_by;  /* bytes the last block falls short of the length */
};

static bool get_block(struct sg_block_info *out, uint32_t dpu_index, uint32_t block_index, void *args)
{
    struct sg_args *sg = args;
    static const uint32_t starts[4] = {0, 3, 8, 16}; /* words */
    if (block_index >= sg->nr_blocks || block_index >= 3)
        return false;
    out->addr = (uint8_t *)&sg->data[dpu_index][starts[block_index]];
    out->length = (starts[block_index + 1] - starts[block_index]) * 8;
    if (block_index == 2)
        out->length -= sg->short_by;
    return true;
}

static bool many_blocks(struct sg_block_info *out, uint32_t dpu_index, uint32_t block_index, void *args)
{
    struct sg_args *sg = args;
    if (block_index >= WORDS)
        return false;
    out->addr = (uint8_t *)&sg->data[dpu_index][block_index];
    out->length = 8;
    return true;
}

static dpu_error_t to_string(void *arg, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    size_t used = strlen(arg);
    vsnprintf((char *)arg + used, 4096 - used, format, ap);
    va_end(ap);
    return DPU_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DPU_PROGRAM\n", argv[0]);
        return 2;
    }
    struct dpu_set_t set, dpu, rank;
    struct dpu_program_t *program;
    uint32_t i;

    /* Without sgXferEnable, scatter-gather is refused. */
    DPU_ASSERT(dpu_alloc(NR_DPUS, NULL, &set));
    DPU_ASSERT(dpu_load(set, argv[1], &program));
    static struct sg_args sg;
    get_block_t blocks = {.f = get_block, .args = &sg, .args_size = sizeof(sg)};
    sg.nr_blocks = 3;
    printf("sg_not_activated=%d\n", dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "area", 0, WORDS * 8, &blocks,
                                                      DPU_SG_XFER_DEFAULT));
    DPU_ASSERT(dpu_free(set));

    DPU_ASSERT(dpu_alloc(NR_DPUS, "sgXferEnable=true,sgXferMaxBlocksPerDpu=8", &set));
    DPU_ASSERT(dpu_load(set, argv[1], &program));

    /* Scatter-gather to the DPUs, then the kernel adds 1000 to each word. */
    for (uint32_t d = 0; d < NR_DPUS; d++)
        for (uint32_t w = 0; w < WORDS; w++)
            sg.data[d][w] = d * 100 + w;
    DPU_ASSERT(dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "area", 0, WORDS * 8, &blocks, DPU_SG_XFER_DEFAULT));
    uint32_t increment = 1000, words = WORDS;
    DPU_ASSERT(dpu_broadcast_to(set, "increment", 0, &increment, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_broadcast_to(set, "words", 0, &words, 4, DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    /* Gather back into the same blocks through the symbol variant. */
    memset(sg.data, 0, sizeof(sg.data));
    struct dpu_symbol_t area;
    DPU_ASSERT(dpu_get_symbol(program, "area", &area));
    DPU_ASSERT(dpu_push_sg_xfer_symbol(set, DPU_XFER_FROM_DPU, area, 0, WORDS * 8, &blocks,
                                       DPU_SG_XFER_ASYNC));
    DPU_ASSERT(dpu_sync(set));
    int good = 1;
    for (uint32_t d = 0; d < NR_DPUS; d++)
        for (uint32_t w = 0; w < WORDS; w++)
            good &= sg.data[d][w] == d * 100 + w + 1000;
    printf("sg_round_trip=%d\n", good);

    /* Errors: too many blocks, lengths that do not add up, a WRAM symbol, one DPU. */
    get_block_t many = {.f = many_blocks, .args = &sg, .args_size = sizeof(sg)};
    printf("sg_too_many_blocks=%d\n", dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "area", 0, WORDS * 8, &many,
                                                        DPU_SG_XFER_DEFAULT));
    sg.short_by = 16;
    printf("sg_length_mismatch=%d\n", dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "area", 0, WORDS * 8, &blocks,
                                                        DPU_SG_XFER_DEFAULT));
    printf("sg_longer_than_length=%d\n", dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "area", 0, 64, &blocks,
                                                           DPU_SG_XFER_DISABLE_LENGTH_CHECK));
    printf("sg_not_mram_symbol=%d\n", dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "words", 0, 8, &blocks,
                                                        DPU_SG_XFER_DEFAULT));
    printf("sg_unknown_symbol=%d\n", dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "nope", 0, 8, &blocks,
                                                       DPU_SG_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, i) {
        if (i == 0)
            printf("sg_single_dpu=%d\n", dpu_push_sg_xfer(dpu, DPU_XFER_TO_DPU, "area", 0, WORDS * 8, &blocks,
                                                           DPU_SG_XFER_DEFAULT));
    }
    /* DISABLE_LENGTH_CHECK: 16 bytes short; the rest of the range reads back as zeros. */
    uint64_t ones[WORDS];
    memset(ones, 0xff, sizeof(ones));
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, ones));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "area", 0, sizeof(ones), DPU_XFER_DEFAULT));
    for (uint32_t d = 0; d < NR_DPUS; d++)
        for (uint32_t w = 0; w < WORDS; w++)
            sg.data[d][w] = 7;
    DPU_ASSERT(dpu_push_sg_xfer(set, DPU_XFER_TO_DPU, "area", 0, WORDS * 8, &blocks,
                                DPU_SG_XFER_DISABLE_LENGTH_CHECK));
    uint64_t back[WORDS];
    good = 1;
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, "area", 0, back, sizeof(back)));
        for (uint32_t w = 0; w < WORDS; w++)
            good &= back[w] == (w < WORDS - 2 ? 7u : 0u);
    }
    printf("sg_zero_fill=%d\n", good);
    sg.short_by = 0;

    /* FIFOs: not in the emulator. */
    struct dpu_fifo_link_t link;
    printf("fifo_link=%d\n", dpu_link_input_fifo(set, &link, (char *)"input"));
    printf("fifo_prepare=%d\n", dpu_fifo_prepare_xfer(set, &link, back));
    printf("fifo_push=%d\n", dpu_fifo_push_xfer(set, &link, DPU_XFER_DEFAULT));

    /* dpu_management.h */
    uint32_t counted = 0, matches = 1;
    DPU_RANK_FOREACH(set, rank) {
        struct dpu_rank_t *r = dpu_rank_from_set(rank);
        struct dpu_t *d;
        uint32_t index;
        STRUCT_DPU_FOREACH(r, d, index) {
            counted++;
            matches &= dpu_get_rank(d) == r && dpu_is_enabled(d) &&
                       dpu_get(r, dpu_get_slice_id(d), dpu_get_member_id(d)) == d &&
                       dpu_get_member_id(d) == index % 8 && dpu_get_slice_id(d) == index / 8;
        }
        dpu_description_t description = dpu_get_description(r);
        printf("cis=%u dpus_per_ci=%u mram=%u type=%s\n", description->hw.topology.nr_of_control_interfaces,
               description->hw.topology.nr_of_dpus_per_control_interface, description->hw.memories.mram_size,
               dpu_type_to_string(description->type));
        dpu_lock_rank(r);
        printf("trylock_while_locked=%d\n", dpu_trylock_rank(r) != 0);
        dpu_unlock_rank(r);
        printf("numa=%d rank_id=%u\n", dpu_get_rank_numa_node(r), dpu_get_rank_id(r));
        printf("target_masked_rank_id=%u\n", (unsigned)(dpu_get_rank_id(r) & DPU_TARGET_MASK));
    }
    printf("struct_foreach=%u matches=%u\n", counted, matches);
    dpu_description_t profile_description;
    printf("bad_profile_description=%d\n", dpu_get_profile_description("nonsense", &profile_description));
    DPU_ASSERT(dpu_get_profile_description("clockMHz=400", &profile_description));
    printf("profile_clock=%u\n", profile_description->hw.timings.fck_frequency_in_mhz);
    dpu_free_description(profile_description);

    /* dpu_memory.h, dpu_program.h, dpu_log.h, dpu_log_internals.h on the last DPU. */
    DPU_FOREACH(set, dpu, i) {
        if (i != NR_DPUS - 1)
            continue;
        struct dpu_t *d = dpu_from_set(dpu);
        printf("dpu_id=0x%x\n", dpu_get_id(d));
        uint8_t raw[16] = "raw mram bytes!", raw_back[16] = {0};
        DPU_ASSERT(dpu_copy_to_mram(d, 1 << 20, raw, sizeof(raw)));
        DPU_ASSERT(dpu_copy_from_mram(d, raw_back, 1 << 20, sizeof(raw_back)));
        printf("raw_mram=%d\n", memcmp(raw, raw_back, sizeof(raw)) == 0);
        printf("mram_beyond=%d\n", dpu_copy_to_mram(d, 64u << 20, raw, 8));
        struct dpu_symbol_t words_symbol;
        DPU_ASSERT(dpu_get_symbol(program, "words", &words_symbol));
        dpuword_t word = 0;
        DPU_ASSERT(dpu_copy_from_wram_for_dpu(d, &word, words_symbol.address / 4, 1));
        printf("wram_word=%u\n", word);
        dpuinstruction_t instruction = 0;
        printf("iram=%d\n", dpu_copy_to_iram_for_dpu(d, 0, &instruction, 1));
        printf("program_is_common=%d\n", dpu_get_program(d) == program);
        struct dpu_program_t *common;
        DPU_ASSERT(dpu_get_common_program(&set, &common));
        printf("common_program=%d\n", common == program);
        printf("--- dpulog_read_for_dpu\n");
        DPU_ASSERT(dpulog_read_for_dpu(d, stdout));
        printf("--- dpu_log_read\n");
        DPU_ASSERT(dpu_log_read(dpu, stdout));
        printf("--- end\n");
        static char text[4096];
        DPU_ASSERT(dpulog_read_for_dpu_(d, to_string, text));
        printf("internals_log=%s", text);

        /* dpu_checkpoint.h: save the MRAM and the whole WRAM, overwrite, restore; the
         * registers (DPU_CHECKPOINT_ALL) cannot be saved. */
        struct dpu_context_t context;
        printf("checkpoint_all=%d\n", (int)dpu_checkpoint_save(dpu, DPU_CHECKPOINT_ALL, &context));
        const dpu_checkpoint_flags_t memories = DPU_CHECKPOINT_MRAM | DPU_CHECKPOINT_WRAM;
        DPU_ASSERT(dpu_checkpoint_save(dpu, memories, &context));
        printf("checkpoint_wram_words=%u\n", (unsigned)context.info.wram_size);
        DPU_ASSERT(dpu_copy_to_mram(d, 1 << 20, (const uint8_t *)"overwritten.....", 16));
        DPU_ASSERT(dpu_checkpoint_restore(dpu, memories, &context));
        DPU_ASSERT(dpu_copy_from_mram(d, raw_back, 1 << 20, sizeof(raw_back)));
        printf("checkpoint=%d\n", memcmp(raw, raw_back, sizeof(raw)) == 0);
        DPU_ASSERT(dpu_checkpoint_free(&context));

        /* dpu_runner.h: boot one DPU and wait for it. */
        DPU_ASSERT(dpu_launch_thread_on_dpu(d, DPU_BOOT_THREAD, false));
        DPU_ASSERT(dpu_sync(dpu));
        bool done = false, fault = true;
        DPU_ASSERT(dpu_status_dpu(d, &done, &fault));
        printf("runner_done=%d fault=%d\n", done, fault);
        printf("other_thread=%d\n", dpu_launch_thread_on_dpu(d, 3, false));
    }

    /* dpu_transfer_matrix.h with dpu_memory.h's rank-level MRAM copy. */
    DPU_RANK_FOREACH(set, rank) {
        struct dpu_rank_t *r = dpu_rank_from_set(rank);
        static uint64_t per_dpu[NR_DPUS][2];
        struct dpu_transfer_matrix matrix;
        memset(&matrix, 0, sizeof(matrix));
        struct dpu_t *d;
        uint32_t index;
        STRUCT_DPU_FOREACH(r, d, index) {
            per_dpu[index][0] = 42 + index;
            dpu_transfer_matrix_add_dpu(d, &matrix, per_dpu[index]);
        }
        matrix.offset = 2 << 20;
        matrix.size = 16;
        DPU_ASSERT(dpu_copy_to_mrams(r, &matrix));
        memset(per_dpu, 0, sizeof(per_dpu));
        DPU_ASSERT(dpu_copy_from_mrams(r, &matrix));
        printf("matrix=%d\n", per_dpu[NR_DPUS - 1][0] == 42 + NR_DPUS - 1);
    }

    /* dpu_probe.h: time is measured, energy reads 0. */
    struct dpu_probe_t probe;
    DPU_ASSERT(dpu_probe_init("energy_probe", &probe));
    for (int rep = 0; rep < 2; rep++) {
        DPU_ASSERT(dpu_probe_start(&probe));
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        DPU_ASSERT(dpu_probe_stop(&probe));
    }
    double energy = -1, average = -1, total = -1;
    DPU_ASSERT(dpu_probe_get(&probe, DPU_ENERGY, DPU_AVERAGE, &energy));
    DPU_ASSERT(dpu_probe_get(&probe, DPU_TIME, DPU_AVERAGE, &average));
    DPU_ASSERT(dpu_probe_get(&probe, DPU_TIME, DPU_ACCUMULATE, &total));
    printf("probe_energy=%g probe_time_ok=%d\n", energy, average >= 0.02 && total >= 2 * 0.02 && total < 10);
    printf("probe_stop_twice=%d\n", dpu_probe_stop(&probe));
    DPU_ASSERT(dpu_probe_deinit(&probe));

    /* The rest links and answers. */
    bank_interface_pmc_result_t pmc;
    printf("pmc=%d\n", dpu_bank_interface_pmc_read_counters(set, &pmc));
    dpu_elf_file_t elf;
    printf("elf=%d\n", dpu_elf_open(argv[1], &elf));
    printf("chip_idx=%u\n", chip_id_to_idx(vD_asic8_v1_4));
    printf("concat=%s\n", _STR(_CONCAT(DPU_, OK)));
    char *message = dpu_error_to_string(DPU_ERR_SG_NOT_ACTIVATED);
    printf("message=%s\n", message);
    free(message);
    DPU_ASSERT(dpu_free(set));

    /* A rank on its own. */
    struct dpu_rank_t *single;
    DPU_ASSERT(dpu_get_rank_of_type(NULL, &single));
    printf("single_rank_dpus=%u\n", dpu_get_description(single)->hw.topology.nr_of_control_interfaces * 8);
    DPU_ASSERT(dpu_free_rank(single));
    printf("OK\n");
    return 0;
}
