/* Host for interleaving.c: runs `mode` on NR_DPUS DPUs and prints, for each, `result`,
 * `lock_bytes_touched` and `seen`. */
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s DPU_BINARY MODE NR_DPUS NR_TASKLETS PROFILE\n", argv[0]);
        return 2;
    }
    uint32_t mode = (uint32_t)atoi(argv[2]), nr_dpus = (uint32_t)atoi(argv[3]);
    uint32_t nr_tasklets = (uint32_t)atoi(argv[4]), each;
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(nr_dpus, argv[5], &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    DPU_ASSERT(dpu_copy_to(set, "mode", 0, &mode, sizeof(mode)));
    printf("launch=%d\n", dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu) {
        uint32_t result, touched;
        DPU_ASSERT(dpu_copy_from(dpu, "result", 0, &result, sizeof(result)));
        DPU_ASSERT(dpu_copy_from(dpu, "lock_bytes_touched", 0, &touched, sizeof(touched)));
        printf("result=%u touched=%u seen=", result, touched);
        for (uint32_t t = 0; t < nr_tasklets; t++) {
            DPU_ASSERT(dpu_copy_from(dpu, "seen", t * 4, &each, sizeof(each)));
            printf("%s%u", t ? "," : "", each);
        }
        printf("\n");
    }
    DPU_ASSERT(dpu_free(set));
    return 0;
}
