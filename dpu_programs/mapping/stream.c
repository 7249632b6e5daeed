/* stream.c: two PrIM-style kernels for the mapping search, over one DPU's share of
 * `elements` int32 values at the start of the MRAM heap, BLOCK bytes at a time
 * (-DBLOCK=..., a multiple of 8 up to 2,048), tasklets taking blocks in turn:
 *   -DKERNEL_VA   vector addition: C = A + B (A, then B, then C, each `elements` long)
 *   -DKERNEL_RED  reduction: the int64 sum of A, combined over the tasklets in `total`
 * `elements` * 4 is a multiple of BLOCK. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#ifndef BLOCK
#define BLOCK 1024
#endif
#define PER_BLOCK (BLOCK / 4)

__host uint32_t elements;
__host int64_t total;
int64_t partial[NR_TASKLETS];
BARRIER_INIT(ready, NR_TASKLETS);
BARRIER_INIT(summed, NR_TASKLETS);

int main(void)
{
    if (me() == 0)
        mem_reset(); /* the WRAM heap outlives launches */
    barrier_wait(&ready);
    uint32_t bytes = elements * 4;
    uintptr_t a = (uintptr_t)DPU_MRAM_HEAP_POINTER;
    int32_t *wa = mem_alloc(BLOCK);
#if defined(KERNEL_VA)
    int32_t *wb = mem_alloc(BLOCK);
    for (uint32_t at = me() * BLOCK; at < bytes; at += NR_TASKLETS * BLOCK) {
        mram_read((__mram_ptr void const *)(a + at), wa, BLOCK);
        mram_read((__mram_ptr void const *)(a + bytes + at), wb, BLOCK);
        for (int k = 0; k < PER_BLOCK; k++)
            wa[k] += wb[k];
        mram_write(wa, (__mram_ptr void *)(a + 2 * (uintptr_t)bytes + at), BLOCK);
    }
#else
    int64_t sum = 0;
    for (uint32_t at = me() * BLOCK; at < bytes; at += NR_TASKLETS * BLOCK) {
        mram_read((__mram_ptr void const *)(a + at), wa, BLOCK);
        for (int k = 0; k < PER_BLOCK; k++)
            sum += wa[k];
    }
    partial[me()] = sum;
    barrier_wait(&summed);
    if (me() == 0) {
        for (unsigned t = 1; t < NR_TASKLETS; t++)
            sum += partial[t];
        total = sum;
    }
#endif
    return 0;
}
