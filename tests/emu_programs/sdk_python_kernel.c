/* The DPU side of sdk_python_host.py: a weighted sum of an MRAM buffer, plus a few WRAM
 * variables of different types for the SDK module's symbol attributes. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

__host uint32_t factor;
__host uint32_t dpu_index;
__host uint32_t crash;
__host uint64_t result;
__host float scale;
__host int32_t negated[4];
__mram_noinit uint32_t buffer[N];

int main(void)
{
    __dma_aligned uint32_t cache[N];
    if (crash)
        abort(); /* the DPU faults */
    mram_read(buffer, cache, sizeof(cache));
    uint64_t sum = 0;
    for (uint32_t i = 0; i < N; i++)
        sum += (uint64_t)cache[i] * factor;
    result = sum;
    scale = scale * 2.0f;
    for (uint32_t i = 0; i < 4; i++)
        negated[i] = -negated[i];
    printf("dpu %u: sum %lu\n", dpu_index, (unsigned long)sum);
    return 0;
}
