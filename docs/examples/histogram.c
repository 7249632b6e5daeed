/* histogram.c: a histogram of 12-bit values (uint32 in 0..4095) into NR_BINS bins,
 * bin = value * NR_BINS >> 12.
 *
 * Each tasklet counts its blocks into a private histogram in WRAM, then adds it to the
 * shared one under a mutex. The host sets nr_elements (the real count) per DPU; the
 * padding after it is not counted.
 */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex.h>
#include <stdint.h>

#ifndef BLOCK
#define BLOCK (NR_TASKLETS > 16 ? 512 : 1024) /* WRAM: a block, bins and a stack each */
#endif
#ifndef NR_BINS
#define NR_BINS 256
#endif

__host uint32_t nr_elements;      /* values on this DPU */
__host uint32_t histogram[NR_BINS]; /* the DPU's histogram */

BARRIER_INIT(barrier, NR_TASKLETS);
MUTEX_INIT(histogram_mutex);

int main(void)
{
    if (me() == 0) {
        mem_reset();
        for (unsigned b = 0; b < NR_BINS; b++)
            histogram[b] = 0;
    }
    barrier_wait(&barrier);

    uint32_t data = (uint32_t)DPU_MRAM_HEAP_POINTER;
    uint32_t *buffer = mem_alloc(BLOCK);
    uint32_t *local = mem_alloc(NR_BINS * sizeof(uint32_t));
    for (unsigned b = 0; b < NR_BINS; b++)
        local[b] = 0;

    uint32_t nr_bytes = nr_elements * sizeof(uint32_t);
    for (uint32_t offset = me() * BLOCK; offset < nr_bytes; offset += NR_TASKLETS * BLOCK) {
        uint32_t length = nr_bytes - offset < BLOCK ? nr_bytes - offset : BLOCK;
        uint32_t dma = (length + 7) & ~7u; /* DMA sizes are multiples of 8 */
        mram_read((__mram_ptr void const *)(uintptr_t)(data + offset), buffer, dma);
        for (uint32_t i = 0; i < length / sizeof(uint32_t); i++)
            local[(buffer[i] * NR_BINS) >> 12]++;
    }

    mutex_lock(histogram_mutex);
    for (unsigned b = 0; b < NR_BINS; b++)
        histogram[b] += local[b];
    mutex_unlock(histogram_mutex);
    return 0;
}
