/* Checksum of a buffer, in the style of the SDK's examples. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <perfcounter.h>
#include <stdint.h>
#include <stdio.h>

#define BUFFER_SIZE (1 << 16)
#define BLOCK_SIZE 256

__mram_noinit uint8_t buffer[BUFFER_SIZE];
__host uint32_t checksum;
__host uint32_t cycles;
uint32_t result_tasklet[NR_TASKLETS];
BARRIER_INIT(my_barrier, NR_TASKLETS);

int main(void)
{
    uint32_t tasklet_id = me();
    uint8_t *cache = mem_alloc(BLOCK_SIZE);
    if (tasklet_id == 0) {
        mem_reset();
        perfcounter_config(COUNT_CYCLES, true);
    }
    barrier_wait(&my_barrier);
    cache = mem_alloc(BLOCK_SIZE);
    uint32_t sum = 0;
    for (uint32_t offset = tasklet_id * BLOCK_SIZE; offset < BUFFER_SIZE; offset += NR_TASKLETS * BLOCK_SIZE) {
        mram_read(&buffer[offset], cache, BLOCK_SIZE);
        for (uint32_t i = 0; i < BLOCK_SIZE; i++)
            sum += cache[i];
    }
    result_tasklet[tasklet_id] = sum;
    barrier_wait(&my_barrier);
    if (tasklet_id == 0) {
        checksum = 0;
        for (uint32_t t = 0; t < NR_TASKLETS; t++)
            checksum += result_tasklet[t];
        cycles = (uint32_t)perfcounter_get();
        printf("checksum = 0x%08x\n", checksum);
    }
    return 0;
}
