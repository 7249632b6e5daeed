/* Host that allocates and loads DPUs, prints "ready", then waits for a line on stdin
 * (or to be killed). With CYCLES > 0 it first runs that many alloc/load/launch/free
 * cycles. Used by the leak tests. */
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s DPU_BINARY NR_DPUS CYCLES\n", argv[0]);
        return 2;
    }
    uint32_t nr_dpus = (uint32_t)atoi(argv[2]);
    int cycles = atoi(argv[3]);
    struct dpu_set_t set;
    for (int c = 0; c < cycles; c++) {
        DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
        DPU_ASSERT(dpu_load(set, argv[1], NULL));
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        DPU_ASSERT(dpu_free(set));
    }
    if (cycles == 0) {
        DPU_ASSERT(dpu_alloc(nr_dpus, NULL, &set));
        DPU_ASSERT(dpu_load(set, argv[1], NULL));
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    }
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    char line[16];
    if (fgets(line, sizeof(line), stdin) == NULL)
        return 1;
    if (cycles == 0)
        DPU_ASSERT(dpu_free(set));
    printf("freed\n");
    fflush(stdout);
    if (fgets(line, sizeof(line), stdin) == NULL)
        return 1;
    return 0;
}
