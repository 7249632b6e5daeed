/* Small kernels with known costs for the time model. `mode`:
 *   1  compute: `rounds` rounds of a loop in every tasklet, no DMA
 *   2  DMA: tasklet 0 reads 2048 bytes from MRAM `rounds` times
 *   3  barrier: tasklet 0 computes, the others wait for it at a barrier
 *   4  DMA from every tasklet: each reads 2048 bytes `rounds` times
 *   5  a delay loop of `rounds` __builtin_nop_() in every tasklet
 * Each tasklet records the instructions issued while it ran (from the performance
 * counter, which counts for the whole DPU) and the cycle count it sees at its end. */
#include <barrier.h>
#include <built_ins.h>
#include <defs.h>
#include <mram.h>
#include <perfcounter.h>
#include <stdint.h>

__host uint32_t mode;
__host uint32_t rounds;
__host uint64_t instructions[NR_TASKLETS];
__host uint64_t cycles_at_end[NR_TASKLETS];
__host uint32_t checksum[NR_TASKLETS];
__mram_noinit uint8_t table[2048];
__dma_aligned uint8_t buffer[NR_TASKLETS][2048];
BARRIER_INIT(everyone, NR_TASKLETS);

static uint32_t compute(uint32_t n)
{
    uint32_t x = me() + 1;
    for (uint32_t i = 0; i < n; i++)
        x = x * 5 + (x >> 3);
    return x;
}

int main(void)
{
    uint32_t id = me();
    perfcounter_config(COUNT_INSTRUCTIONS, false);
    uint64_t before = perfcounter_get();
    if (mode == 1) {
        checksum[id] = compute(rounds);
    } else if (mode == 2 && id == 0) {
        for (uint32_t i = 0; i < rounds; i++)
            mram_read(table, buffer[id], 2048);
    } else if (mode == 4) {
        for (uint32_t i = 0; i < rounds; i++)
            mram_read(table, buffer[id], 2048);
    } else if (mode == 5) {
        for (uint32_t i = 0; i < rounds; i++)
            __builtin_nop_();
    } else if (mode == 3) {
        if (id == 0)
            checksum[id] = compute(rounds);
        barrier_wait(&everyone);
    }
    perfcounter_config(COUNT_INSTRUCTIONS, false); /* the mode is the DPU's, not the tasklet's */
    instructions[id] = perfcounter_get() - before;
    perfcounter_config(COUNT_CYCLES, false);
    cycles_at_end[id] = perfcounter_get();
    return 0;
}
