/* Host of mutex_example.c: one DPU, run once; prints the log, then
 * shared_variable=, nr_writers= and returned_<t>= for every tasklet. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>

#ifndef DPU_BINARY
#define DPU_BINARY "./mutex_example"
#endif
#ifndef NR_TASKLETS
#define NR_TASKLETS 16
#endif

int main(void)
{
    struct dpu_set_t set, dpu;
    int shared_variable, returned[NR_TASKLETS];
    uint32_t nr_writers;

    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_log_read(dpu, stdout));
        DPU_ASSERT(dpu_copy_from(dpu, "shared_variable", 0, &shared_variable, sizeof(int)));
        DPU_ASSERT(dpu_copy_from(dpu, "nr_writers", 0, &nr_writers, sizeof(nr_writers)));
        DPU_ASSERT(dpu_copy_from(dpu, "returned", 0, returned, sizeof(returned)));
    }
    printf("shared_variable=%d\nnr_writers=%u\n", shared_variable, nr_writers);
    for (int t = 0; t < NR_TASKLETS; t++)
        printf("returned_%d=%d\n", t, returned[t]);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
