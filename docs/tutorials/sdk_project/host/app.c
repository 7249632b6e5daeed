/* app.c: the host side, written against the SDK's dpu.h. Each DPU gets MAX_VALUES of
 * the numbers 1..N through dpu_prepare_xfer/dpu_push_xfer; the host adds their sums. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_VALUES 4096

static uint32_t values[NR_DPUS][MAX_VALUES];

int main(void)
{
    struct dpu_set_t set, dpu;
    uint32_t each;
    uint64_t results[NR_DPUS], total = 0, n = (uint64_t)NR_DPUS * MAX_VALUES;

    for (uint32_t d = 0; d < NR_DPUS; d++)
        for (uint32_t i = 0; i < MAX_VALUES; i++)
            values[d][i] = d * MAX_VALUES + i + 1;

    DPU_ASSERT(dpu_alloc(NR_DPUS, NULL, &set));
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));
    uint32_t count = MAX_VALUES;
    DPU_ASSERT(dpu_broadcast_to(set, "nr_values", 0, &count, sizeof(count),
                                DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, each) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, values[each]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "values", 0, sizeof(values[0]),
                             DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu, each) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, &results[each]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "result", 0, sizeof(uint64_t),
                             DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, each) {
        total += results[each];
        if (each == 0)
            DPU_ASSERT(dpu_log_read(dpu, stdout));
    }
    DPU_ASSERT(dpu_free(set));
    printf("sum of 1..%lu on %d DPUs: %lu (%s)\n", (unsigned long)n, NR_DPUS,
           (unsigned long)total, total == n * (n + 1) / 2 ? "right" : "WRONG");
    return total == n * (n + 1) / 2 ? EXIT_SUCCESS : EXIT_FAILURE;
}
