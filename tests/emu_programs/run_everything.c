/* Host for everything.c: N DPUs, each gets its own input (value j + DPU index),
 * launched twice (synchronously, then asynchronously with dpu_status/dpu_sync).
 * Prints OK and the first DPU's log, or what differed. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELEMENTS 1000 /* not a multiple of the block: tests the tail */

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s DPU_BINARY NR_DPUS NR_TASKLETS\n", argv[0]);
        return 2;
    }
    uint32_t nr_dpus = (uint32_t)atoi(argv[2]), nr_tasklets = (uint32_t)atoi(argv[3]), i;
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
    uint32_t got;
    DPU_ASSERT(dpu_get_nr_dpus(set, &got));
    if (got != nr_dpus) {
        printf("FAIL nr_dpus %u\n", got);
        return 1;
    }
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    uint64_t *inputs = malloc(sizeof(uint64_t) * ELEMENTS * nr_dpus);
    DPU_FOREACH(set, dpu, i) {
        for (uint32_t j = 0; j < ELEMENTS; j++)
            inputs[(size_t)i * ELEMENTS + j] = j + i;
        DPU_ASSERT(dpu_prepare_xfer(dpu, &inputs[(size_t)i * ELEMENTS]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "input", 0, sizeof(uint64_t) * ELEMENTS, DPU_XFER_DEFAULT));
    uint32_t elements = ELEMENTS;
    DPU_ASSERT(dpu_broadcast_to(set, "nr_elements", 0, &elements, sizeof(elements), DPU_XFER_DEFAULT));
    int failures = 0;
    for (int round = 0; round < 2; round++) {
        if (round == 0) {
            DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        } else {
            DPU_ASSERT(dpu_launch(set, DPU_ASYNCHRONOUS));
            bool done = false, fault = false;
            while (!done)
                DPU_ASSERT(dpu_status(set, &done, &fault));
            DPU_ASSERT(dpu_sync(set));
            if (fault)
                failures++;
        }
        uint64_t *totals = calloc(nr_dpus, sizeof(uint64_t));
        DPU_FOREACH(set, dpu, i) DPU_ASSERT(dpu_prepare_xfer(dpu, &totals[i]));
        DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "total", 0, sizeof(uint64_t), DPU_XFER_DEFAULT));
        DPU_FOREACH(set, dpu, i) {
            uint64_t expected = (uint64_t)ELEMENTS * (ELEMENTS - 1) / 2 + (uint64_t)ELEMENTS * i;
            uint64_t seq, partial_sum = 0, partials[24], outputs[24];
            uint32_t handshakes, launches;
            DPU_ASSERT(dpu_copy_from(dpu, "seq_total", 0, &seq, sizeof(seq)));
            DPU_ASSERT(dpu_copy_from(dpu, "handshakes", 0, &handshakes, sizeof(handshakes)));
            DPU_ASSERT(dpu_copy_from(dpu, "launches", 0, &launches, sizeof(launches)));
            DPU_ASSERT(dpu_copy_from(dpu, "partial", 0, partials, sizeof(uint64_t) * nr_tasklets));
            DPU_ASSERT(dpu_copy_from(dpu, "output", 0, outputs, sizeof(uint64_t) * nr_tasklets));
            for (uint32_t t = 0; t < nr_tasklets; t++) {
                partial_sum += partials[t];
                if (outputs[t] != partials[t])
                    failures++;
            }
            if (totals[i] != expected || seq != expected || partial_sum != expected ||
                handshakes != nr_tasklets - 1 || launches != (uint32_t)round + 1) {
                if (failures++ < 5)
                    printf("DPU %u round %d: total %llu seq %llu partials %llu expected %llu "
                           "handshakes %u launches %u\n", i, round, (unsigned long long)totals[i],
                           (unsigned long long)seq, (unsigned long long)partial_sum,
                           (unsigned long long)expected, handshakes, launches);
            }
        }
        free(totals);
    }
    DPU_FOREACH(set, dpu, i) {
        if (i == nr_dpus - 1)
            DPU_ASSERT(dpu_log_read(dpu, stdout));
    }
    DPU_ASSERT(dpu_free(set));
    free(inputs);
    printf(failures ? "FAIL\n" : "OK\n");
    return failures != 0;
}
