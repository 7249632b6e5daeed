/* Host of fsb_example.c: one DPU, run once; prints the log, node_size=, then
 * result_<t>= and blocks_back_<t>= for every tasklet. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>

#ifndef DPU_BINARY
#define DPU_BINARY "./fsb_example"
#endif
#ifndef NR_TASKLETS
#define NR_TASKLETS 4
#endif

int main(void)
{
    struct dpu_set_t set, dpu;
    int results[NR_TASKLETS];
    uint32_t blocks_back[NR_TASKLETS], node_size;

    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_log_read(dpu, stdout));
        DPU_ASSERT(dpu_copy_from(dpu, "node_size", 0, &node_size, sizeof(node_size)));
        DPU_ASSERT(dpu_copy_from(dpu, "results", 0, results, sizeof(results)));
        DPU_ASSERT(dpu_copy_from(dpu, "blocks_back", 0, blocks_back, sizeof(blocks_back)));
    }
    printf("node_size=%u\n", node_size);
    for (int t = 0; t < NR_TASKLETS; t++)
        printf("result_%d=%d\nblocks_back_%d=%u\n", t, results[t], t, blocks_back[t]);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
