/* A histogram of 32-bit values in MRAM: each tasklet counts its blocks, tasklet 0 adds
 * the counts up. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>

#include "bins.h"

#define BLOCK 64 /* values per DMA */
#define MAX_VALUES (1 << 16)

__host uint32_t nr_values;
__host uint32_t histogram[NR_BINS];
__mram_noinit uint32_t values[MAX_VALUES];

uint32_t counts[NR_TASKLETS][NR_BINS];
uint32_t cache[NR_TASKLETS][BLOCK];
BARRIER_INIT(done, NR_TASKLETS);

int main(void)
{
    uint32_t id = me();
    for (uint32_t b = 0; b < NR_BINS; b++)
        counts[id][b] = 0;
    for (uint32_t first = id * BLOCK; first < nr_values; first += NR_TASKLETS * BLOCK) {
        mram_read(&values[first], cache[id], sizeof(cache[id]));
        uint32_t n = nr_values - first < BLOCK ? nr_values - first : BLOCK;
        for (uint32_t i = 0; i < n; i++)
            counts[id][bin_of(cache[id][i])]++;
    }
    barrier_wait(&done);
    if (id == 0) {
        for (uint32_t b = 0; b < NR_BINS; b++) {
            histogram[b] = 0;
            for (uint32_t t = 0; t < NR_TASKLETS; t++)
                histogram[b] += counts[t][b];
        }
        printf("%u values, %d tasklets, bin 0 holds %u\n", nr_values, NR_TASKLETS, histogram[0]);
    }
    return 0;
}
