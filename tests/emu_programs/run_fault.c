/* Host for faults.c: DPU 0 of two breaks rule `mode` in tasklet `culprit`; prints the
 * launch's code, DPU 0's log and DPU 1's state, then reloads and launches cleanly. */
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s DPU_BINARY MODE CULPRIT\n", argv[0]);
        return 2;
    }
    uint32_t mode = (uint32_t)atoi(argv[2]), culprit = (uint32_t)atoi(argv[3]), i;
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(2, NULL, &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    DPU_ASSERT(dpu_broadcast_to(set, "culprit", 0, &culprit, 4, DPU_XFER_DEFAULT));
    DPU_FOREACH(set, dpu, i) {
        uint32_t my_mode = i == 0 ? mode : 0;
        DPU_ASSERT(dpu_copy_to(dpu, "mode", 0, &my_mode, 4));
    }
    printf("launch=%d\n", dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu, i) {
        bool done, fault;
        DPU_ASSERT(dpu_status(dpu, &done, &fault));
        printf("dpu%u done=%d fault=%d\n", i, done, fault);
        if (i == 0)
            DPU_ASSERT(dpu_log_read(dpu, stdout));
    }
    printf("relaunch=%d\n", dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    uint32_t clean = 0, finished = 0;
    DPU_ASSERT(dpu_broadcast_to(set, "mode", 0, &clean, 4, DPU_XFER_DEFAULT));
    printf("after_reload=%d\n", dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu, i) {
        DPU_ASSERT(dpu_copy_from(dpu, "finished", 0, &finished, 4));
        printf("dpu%u finished=%u\n", i, finished);
    }
    DPU_ASSERT(dpu_free(set));
    printf("host alive\n");
    return 0;
}
