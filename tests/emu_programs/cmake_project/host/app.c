/* The host side: one share of values per DPU, a histogram from each, checked on the host. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NR_BINS 16
#define PER_DPU 4096

static uint32_t values[NR_DPUS][PER_DPU];
static uint32_t histograms[NR_DPUS][NR_BINS];

int main(void)
{
    struct dpu_set_t set, dpu;
    uint32_t each, expected[NR_BINS] = {0}, nr_values = PER_DPU;
    srand(1);
    for (uint32_t d = 0; d < NR_DPUS; d++)
        for (uint32_t i = 0; i < PER_DPU; i++) {
            values[d][i] = (uint32_t)rand() * 2654435761u;
            expected[values[d][i] >> 28]++;
        }
    DPU_ASSERT(dpu_alloc(NR_DPUS, NULL, &set));
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));
    DPU_ASSERT(dpu_broadcast_to(set, "nr_values", 0, &nr_values, sizeof(nr_values), DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, each) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, values[each]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_TO_DPU, "values", 0, sizeof(values[0]), DPU_XFER_DEFAULT));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu, each) {
        DPU_ASSERT(dpu_prepare_xfer(dpu, histograms[each]));
    }
    DPU_ASSERT(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "histogram", 0, sizeof(histograms[0]), DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, each) {
        if (each == 0)
            DPU_ASSERT(dpu_log_read(dpu, stdout));
    }
    int status = 0;
    for (uint32_t b = 0; b < NR_BINS; b++) {
        uint32_t total = 0;
        for (uint32_t d = 0; d < NR_DPUS; d++)
            total += histograms[d][b];
        if (total != expected[b])
            status = 1;
    }
    printf("[%s] histogram of %u values on %d DPUs\n", status ? "ERROR" : "OK", NR_DPUS * PER_DPU, NR_DPUS);
    DPU_ASSERT(dpu_free(set));
    return status;
}
