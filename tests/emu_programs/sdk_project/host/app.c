/* The host side of the checksum example, written for the SDK. */
#include <assert.h>
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef DPU_BINARY
#define DPU_BINARY "./bin/dpu_app"
#endif
#define BUFFER_SIZE (1 << 16)

static uint8_t test_file[BUFFER_SIZE];

int main(void)
{
    struct dpu_set_t set, dpu;
    uint32_t theoretical_checksum = 0, dpu_checksum, each_dpu;
    srand(0);
    for (uint32_t i = 0; i < BUFFER_SIZE; i++) {
        test_file[i] = (uint8_t)rand();
        theoretical_checksum += test_file[i];
    }
    DPU_ASSERT(dpu_alloc(NR_DPUS, NULL, &set));
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));
    DPU_ASSERT(dpu_copy_to(set, "buffer", 0, test_file, BUFFER_SIZE));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    int status = 0;
    DPU_FOREACH(set, dpu, each_dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, "checksum", 0, &dpu_checksum, sizeof(dpu_checksum)));
        if (dpu_checksum != theoretical_checksum)
            status = 1;
        if (each_dpu == 0)
            DPU_ASSERT(dpu_log_read(dpu, stdout));
    }
    printf("[%s] checksums on %d DPUs (0x%08x)\n", status ? "ERROR" : "OK", NR_DPUS, theoretical_checksum);
    DPU_ASSERT(dpu_free(set));
    return status;
}
