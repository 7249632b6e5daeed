/* Host of vmutex_example.c and mutex_pool_example.c (the same interface): copies the
 * 1 MiB file argv[1] to input_table, runs the DPU once and prints every bin of the
 * histogram as "histogram[<bin>] = <count>". */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef DPU_BINARY
#define DPU_BINARY "./vmutex_example"
#endif

#define BUFFER_SIZE (1024 * 1024)
#define NR_ELEMENTS_HIST (1 << 8)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s INPUT_FILE (%d bytes)\n", argv[0], BUFFER_SIZE);
        return 2;
    }
    static uint8_t input[BUFFER_SIZE];
    FILE *file = fopen(argv[1], "rb");
    if (file == NULL || fread(input, 1, BUFFER_SIZE, file) != BUFFER_SIZE) {
        fprintf(stderr, "cannot read %d bytes from %s\n", BUFFER_SIZE, argv[1]);
        return 2;
    }
    fclose(file);

    struct dpu_set_t set, dpu;
    uint64_t histogram[NR_ELEMENTS_HIST];

    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, DPU_BINARY, NULL));
    DPU_ASSERT(dpu_copy_to(set, "input_table", 0, input, BUFFER_SIZE));
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    DPU_FOREACH(set, dpu) {
        DPU_ASSERT(dpu_copy_from(dpu, "histogram", 0, histogram, sizeof(histogram)));
    }
    for (unsigned int i = 0; i < NR_ELEMENTS_HIST; i++)
        printf("histogram[%u] = %llu\n", i, (unsigned long long)histogram[i]);
    DPU_ASSERT(dpu_free(set));
    return 0;
}
