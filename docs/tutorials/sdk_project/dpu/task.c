/* task.c: each DPU adds up its share of the numbers 1..N; tasklet 0 prints the total. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_VALUES 4096

__mram_noinit uint32_t values[MAX_VALUES];
__host uint32_t nr_values;
__host uint64_t result;

uint64_t partial[NR_TASKLETS];
__dma_aligned uint32_t cache[NR_TASKLETS][64];
BARRIER_INIT(barrier, NR_TASKLETS);

int main(void)
{
    unsigned t = me();
    uint64_t sum = 0;
    for (uint32_t first = t * 64; first < nr_values; first += NR_TASKLETS * 64) {
        mram_read(&values[first], cache[t], sizeof(cache[t]));
        for (uint32_t i = 0; i < 64 && first + i < nr_values; i++)
            sum += cache[t][i];
    }
    partial[t] = sum;
    barrier_wait(&barrier);
    if (t == 0) {
        result = 0;
        for (unsigned i = 0; i < NR_TASKLETS; i++)
            result += partial[i];
        printf("%u values, sum %lu\n", nr_values, (unsigned long)result);
    }
    return 0;
}
