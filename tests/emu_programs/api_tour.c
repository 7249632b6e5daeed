/* Host that walks the rest of the interface: DPU_ALLOCATE_ALL (system size from
 * the environment), ranks and DPU_RANK_FOREACH, a program embedded with DPU_INCBIN,
 * dpu_get_symbol with the *_symbol transfers, dpu_callback, dpu_load_from_memory. */
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DPU_INCBIN(embedded, DPU_BINARY)

/* dpu_callback calls it once per rank of the set, with the rank and its index; each
 * DPU gets its index in the set (ranks hold 64 DPUs). */
static dpu_error_t mark(struct dpu_set_t rank, uint32_t rank_index, void *args)
{
    uint32_t *seen = args, member;
    struct dpu_set_t dpu;
    DPU_FOREACH(rank, dpu, member) {
        uint32_t index = rank_index * 64 + member;
        seen[index]++;
        dpu_error_t status = dpu_copy_to(dpu, "culprit", 0, &index, 4);
        if (status != DPU_OK)
            return status;
    }
    return DPU_OK;
}

static dpu_error_t count_calls(struct dpu_set_t set, uint32_t rank_index, void *args)
{
    uint32_t nr_dpus;
    dpu_get_nr_dpus(set, &nr_dpus);
    printf("single_call index=%d dpus=%u\n", (int)rank_index, nr_dpus);
    (*(uint32_t *)args)++;
    return DPU_OK;
}

int main(void)
{
    struct dpu_set_t all, rank, dpu;
    uint32_t nr_dpus, nr_ranks, r, i;
    DPU_ASSERT(dpu_alloc(DPU_ALLOCATE_ALL, NULL, &all));
    DPU_ASSERT(dpu_get_nr_dpus(all, &nr_dpus));
    DPU_ASSERT(dpu_get_nr_ranks(all, &nr_ranks));
    printf("all_dpus=%u all_ranks=%u\n", nr_dpus, nr_ranks);
    printf("alloc_when_full=%d\n", dpu_alloc(1, NULL, &dpu));
    uint32_t counted = 0;
    DPU_RANK_FOREACH(all, rank, r) {
        uint32_t in_rank;
        DPU_ASSERT(dpu_get_nr_dpus(rank, &in_rank));
        DPU_FOREACH(rank, dpu) counted++;
        if (r == 0)
            printf("rank0_dpus=%u\n", in_rank);
    }
    printf("counted=%u\n", counted);
    DPU_ASSERT(dpu_free(all));

    struct dpu_set_t set;
    struct dpu_program_t *program;
    DPU_ASSERT(dpu_alloc(100, NULL, &set));
    DPU_ASSERT(dpu_get_nr_ranks(set, &nr_ranks));
    printf("ranks_for_100=%u\n", nr_ranks);
    DPU_ASSERT(dpu_load_from_incbin(set, &embedded, &program));
    struct dpu_symbol_t symbol;
    DPU_ASSERT(dpu_get_symbol(program, "spin_ms", &symbol));
    printf("spin_ms_size=%u wram=%d\n", symbol.size, (symbol.address & 0x08000000u) == 0);
    DPU_ASSERT(dpu_get_symbol(program, "buffer", &symbol));
    printf("buffer_address=0x%x buffer_size=%u\n", symbol.address, symbol.size);
    DPU_ASSERT(dpu_get_symbol(program, DPU_MRAM_HEAP_POINTER_NAME, &symbol));
    printf("heap_address=0x%x heap_size=%u\n", symbol.address, symbol.size);
    printf("unknown=%d\n", dpu_get_symbol(program, "nope", &symbol));

    uint64_t pattern[4] = {1, 2, 3, 4}, back[4];
    DPU_ASSERT(dpu_get_symbol(program, "buffer", &symbol));
    DPU_ASSERT(dpu_broadcast_to_symbol(set, symbol, 8, pattern, sizeof(pattern), DPU_XFER_DEFAULT));
    uint32_t seen[100] = {0};
    DPU_ASSERT(dpu_callback(set, mark, seen, DPU_CALLBACK_DEFAULT));
    int good = 1;
    DPU_FOREACH(set, dpu, i) {
        uint32_t culprit;
        DPU_ASSERT(dpu_copy_from_symbol(dpu, symbol, 8, back, sizeof(back)));
        DPU_ASSERT(dpu_copy_from(dpu, "culprit", 0, &culprit, 4));
        good &= memcmp(back, pattern, sizeof(back)) == 0 && culprit == i && seen[i] == 1;
    }
    printf("symbol_transfers_and_callback=%d\n", good);
    printf("nonblocking_sync_callback=%d\n", dpu_callback(set, mark, seen, DPU_CALLBACK_NONBLOCKING));
    uint32_t calls = 0;
    DPU_ASSERT(dpu_callback(set, count_calls, &calls, DPU_CALLBACK_SINGLE_CALL));
    printf("single_call_calls=%u\n", calls);

    /* Reload one DPU from memory; the others keep their state. */
    DPU_FOREACH(set, dpu, i) {
        if (i != 3)
            continue;
        DPU_ASSERT(dpu_load_from_memory(dpu, embedded.buffer, embedded.size, NULL));
        uint32_t culprit;
        DPU_ASSERT(dpu_copy_from(dpu, "culprit", 0, &culprit, 4));
        printf("reloaded_culprit=%u\n", culprit);
    }
    printf("different_programs=%d\n", dpu_copy_to(set, "culprit", 0, pattern, 4));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    char *message = dpu_error_to_string(DPU_ERR_DPU_FAULT);
    printf("message=%s\n", message);
    free(message);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
