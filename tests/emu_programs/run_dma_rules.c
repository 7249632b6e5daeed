/* Host for dma_rules.c: fills the DPUs' MRAM heap with bytes i & 0xff, runs `mode` on
 * every DPU `launches` times, then prints the launch code, how many bytes of `out`
 * the DMA wrote, the first 8 of them, and the 8 MRAM bytes at heap offset 0x200. */
#include <dpu.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s DPU_BINARY MODE LAUNCHES PROFILE\n", argv[0]);
        return 2;
    }
    uint32_t mode = (uint32_t)atoi(argv[2]), launches = (uint32_t)atoi(argv[3]);
    static uint8_t heap[8192], out[4096];
    for (uint32_t i = 0; i < sizeof(heap); i++)
        heap[i] = (uint8_t)i;
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(2, argv[4], &set));
    DPU_ASSERT(dpu_load(set, argv[1], NULL));
    DPU_ASSERT(dpu_copy_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, heap, sizeof(heap)));
    DPU_ASSERT(dpu_copy_to(set, "mode", 0, &mode, sizeof(mode)));
    dpu_error_t status = DPU_OK;
    for (uint32_t i = 0; i < launches && status == DPU_OK; i++)
        status = dpu_launch(set, DPU_SYNCHRONOUS);
    printf("launch=%d\n", status);
    DPU_FOREACH(set, dpu) {
        if (status != DPU_OK) {
            dpu_log_read(dpu, stdout);
            break;
        }
        DPU_ASSERT(dpu_copy_from(dpu, "out", 0, out, sizeof(out)));
        DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, heap, sizeof(heap)));
        uint32_t moved = 0;
        for (uint32_t i = 0; i < sizeof(out); i++)
            if (out[i] != 0xee)
                moved = i + 1;
        printf("moved=%u first=%02x%02x%02x%02x%02x%02x%02x%02x at200=%02x%02x%02x%02x\n", moved,
               out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], heap[0x200],
               heap[0x201], heap[0x202], heap[0x203]);
    }
    DPU_ASSERT(dpu_free(set));
    return 0;
}
