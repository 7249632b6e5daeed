/* Host of barrier_example.c: one DPU, run once; prints the log, then checksum_<t>=
 * for every tasklet. */
#include <dpu.h>
#include <stdio.h>

#ifndef DPU_BINARY
#define DPU_BINARY "./barrier_example"
#endif
#ifndef NR_TASKLETS
#define NR_TASKLETS 4
#endif

int main(void)
{
    struct dpu_set_t set, dpu;
    int checksums[NR_TASKLETS];

    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_log_read(dpu, stdout));
        DPU_ASSERT(dpu_copy_from(dpu, "checksums", 0, checksums, sizeof(checksums)));
    }
    for (int t = 0; t < NR_TASKLETS; t++)
        printf("checksum_%d=%d\n", t, checksums[t]);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
