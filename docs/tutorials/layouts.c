/* layouts.c: y = a * x + b on the first nr_values int32 values a DPU holds in MRAM, in
 * place, and the sum of the results. Which values a DPU holds is the host's business
 * (the layout); values after the first nr_values (padding) are left alone. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define BLOCK 1024 /* bytes per mram_read: a multiple of 8, at most 2048 */
#define PER_BLOCK (BLOCK / sizeof(int32_t))

__host uint32_t nr_values; /* values of this DPU; MRAM holds them padded to 8 bytes */
__host int32_t a;
__host int32_t b;
__host int64_t total;      /* output: the sum of this DPU's results */

int64_t partial[NR_TASKLETS];
__dma_aligned int32_t block[NR_TASKLETS][PER_BLOCK];
BARRIER_INIT(done, NR_TASKLETS);

int main(void)
{
    unsigned t = me();
    uint32_t base = (uint32_t)DPU_MRAM_HEAP_POINTER;
    uint32_t nr_bytes = (nr_values * sizeof(int32_t) + 7) & ~7u; /* DMA in 8-byte units */
    int64_t sum = 0;
    for (uint32_t offset = t * BLOCK; offset < nr_bytes; offset += NR_TASKLETS * BLOCK) {
        uint32_t length = nr_bytes - offset < BLOCK ? nr_bytes - offset : BLOCK;
        uint32_t first = offset / sizeof(int32_t);
        __mram_ptr void *where = (__mram_ptr void *)(uintptr_t)(base + offset);
        mram_read(where, block[t], length);
        for (uint32_t i = 0; i < length / sizeof(int32_t) && first + i < nr_values; i++) {
            block[t][i] = a * block[t][i] + b;
            sum += block[t][i];
        }
        mram_write(block[t], where, length);
    }
    partial[t] = sum;
    barrier_wait(&done);
    if (t == 0) {
        total = 0;
        for (unsigned i = 0; i < NR_TASKLETS; i++)
            total += partial[i];
    }
    return 0;
}
