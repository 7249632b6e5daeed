/* Host of mram_example.c: one DPU, run once; prints status_<t>=, then array_ok_<t>=1
 * when tasklet t's 256 bytes of mram_array read back from the host hold i + t, then
 * output_<i>= and mram_values_<i>= for the implicit accesses. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>

#ifndef DPU_BINARY
#define DPU_BINARY "./mram_example"
#endif
#ifndef NR_TASKLETS
#define NR_TASKLETS 16
#endif
#define BUFFER_SIZE 256

int main(void)
{
    struct dpu_set_t set, dpu;
    static uint8_t array[NR_TASKLETS * BUFFER_SIZE];
    uint32_t status[NR_TASKLETS], output[4], mram_values[4];

    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, "status", 0, status, sizeof(status)));
        DPU_ASSERT(dpu_copy_from(dpu, "mram_array", 0, array, sizeof(array)));
        DPU_ASSERT(dpu_copy_from(dpu, "output", 0, output, sizeof(output)));
        DPU_ASSERT(dpu_copy_from(dpu, "mram_values", 0, mram_values, sizeof(mram_values)));
    }
    for (int t = 0; t < NR_TASKLETS; t++) {
        int ok = 1;
        for (int i = 0; i < BUFFER_SIZE; i++)
            if (array[t * BUFFER_SIZE + i] != (uint8_t)(i + t))
                ok = 0;
        printf("status_%d=%u\narray_ok_%d=%d\n", t, status[t], t, ok);
    }
    for (int i = 0; i < 4; i++)
        printf("output_%d=%u\nmram_values_%d=%u\n", i, output[i], i, mram_values[i]);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
