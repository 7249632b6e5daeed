/* fc.c: one DPU's share of a fully connected layer, Y = W X, for the mapping search.
 *
 * The host gives each DPU a block of W's rows (or, split by columns, every row's slice of
 * columns), `rows` x `cols` values of T (int8_t or int32_t, -DT=...), row-major at the
 * start of the MRAM heap, and the matching part of X: `batch` vectors of `cols` values of
 * T, one after the other, right after W. The DPU writes `rows` x `batch` int32 sums after
 * X. Tasklets take rows in turn; each reads BLOCK bytes of its row and of each vector at
 * a time (-DBLOCK=..., a multiple of 8 up to 2,048) and keeps BATCH_MAX sums.
 *
 * Sizes are in bytes where they name MRAM; `cols` * sizeof(T) is a multiple of BLOCK. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#ifndef T
#define T int8_t
#endif
#ifndef BLOCK
#define BLOCK 1024
#endif
#define BATCH_MAX 16
#define PER_BLOCK (BLOCK / (int)sizeof(T))

__host uint32_t rows, cols, batch;
BARRIER_INIT(ready, NR_TASKLETS);

int main(void)
{
    if (me() == 0)
        mem_reset(); /* the WRAM heap outlives launches */
    barrier_wait(&ready);
    T *w = mem_alloc(BLOCK);
    T *x = mem_alloc(BLOCK);
    int32_t *sums = mem_alloc(BATCH_MAX * sizeof(int32_t));
    uint32_t row_bytes = cols * sizeof(T);
    uintptr_t weights = (uintptr_t)DPU_MRAM_HEAP_POINTER;
    uintptr_t inputs = weights + (uintptr_t)rows * row_bytes;
    uintptr_t outputs = inputs + (uintptr_t)batch * row_bytes;
    for (uint32_t r = me(); r < rows; r += NR_TASKLETS) {
        for (uint32_t b = 0; b < batch; b++)
            sums[b] = 0;
        for (uint32_t at = 0; at < row_bytes; at += BLOCK) {
            mram_read((__mram_ptr void const *)(weights + (uintptr_t)r * row_bytes + at), w, BLOCK);
            for (uint32_t b = 0; b < batch; b++) {
                mram_read((__mram_ptr void const *)(inputs + (uintptr_t)b * row_bytes + at), x, BLOCK);
                int32_t sum = 0;
                for (int k = 0; k < PER_BLOCK; k++)
                    sum += (int32_t)w[k] * (int32_t)x[k];
                sums[b] += sum;
            }
        }
        /* one row's sums, padded to 8 bytes (the host reads BATCH_MAX per row) */
        mram_write(sums, (__mram_ptr void *)(outputs + (uintptr_t)r * BATCH_MAX * sizeof(int32_t)),
                   BATCH_MAX * sizeof(int32_t));
    }
    return 0;
}
