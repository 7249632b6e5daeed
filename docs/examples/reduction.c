/* reduction.c: the sum of uint32 values in MRAM, with one partial sum per tasklet.
 *
 * Each tasklet adds its BLOCK-byte blocks (blocks t, t + NR_TASKLETS, ...) into
 * partial[me()]; after a barrier tasklet 0 adds the partials into total. The host reads
 * both and adds the DPUs' totals (the Inter-DPU step).
 */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#ifndef BLOCK
#define BLOCK 1024
#endif

__host uint32_t nr_bytes;              /* bytes of data on this DPU (a multiple of 8) */
__host uint64_t partial[NR_TASKLETS]; /* one partial sum per tasklet */
__host uint64_t total;                 /* the DPU's sum */

BARRIER_INIT(barrier, NR_TASKLETS);

int main(void)
{
    if (me() == 0)
        mem_reset();
    barrier_wait(&barrier);

    uint32_t data = (uint32_t)DPU_MRAM_HEAP_POINTER;
    uint32_t *buffer = mem_alloc(BLOCK);
    uint64_t sum = 0;
    for (uint32_t offset = me() * BLOCK; offset < nr_bytes; offset += NR_TASKLETS * BLOCK) {
        uint32_t length = nr_bytes - offset < BLOCK ? nr_bytes - offset : BLOCK;
        mram_read((__mram_ptr void const *)(uintptr_t)(data + offset), buffer, length);
        for (uint32_t i = 0; i < length / sizeof(uint32_t); i++)
            sum += buffer[i];
    }
    partial[me()] = sum;

    barrier_wait(&barrier);
    if (me() == 0) {
        uint64_t all = 0;
        for (unsigned t = 0; t < NR_TASKLETS; t++)
            all += partial[t];
        total = all;
    }
    return 0;
}
