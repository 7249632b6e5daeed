/* vecadd.c: C = A + B on int32 vectors held in MRAM.
 *
 * The host writes A at DPU_MRAM_HEAP_POINTER, B right after it and reads C after B;
 * each vector takes nr_bytes bytes (a multiple of 8). Tasklets take BLOCK-byte blocks
 * in turn ("stride"): tasklet t handles blocks t, t + NR_TASKLETS, ...
 */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#ifndef BLOCK
/* bytes per mram_read: a multiple of 8, at most 2048; smaller with many tasklets, as
 * WRAM holds 2 blocks and a 1 KiB stack per tasklet */
#define BLOCK (NR_TASKLETS > 16 ? 512 : 1024)
#endif

__host uint32_t nr_bytes; /* bytes of each vector on this DPU */

BARRIER_INIT(start_barrier, NR_TASKLETS);

int main(void)
{
    if (me() == 0)
        mem_reset(); /* the WRAM heap survives launches: start afresh */
    barrier_wait(&start_barrier);

    uint32_t a = (uint32_t)DPU_MRAM_HEAP_POINTER;
    uint32_t b = a + nr_bytes;
    uint32_t c = b + nr_bytes;
    int32_t *wa = mem_alloc(BLOCK);
    int32_t *wb = mem_alloc(BLOCK);

    for (uint32_t offset = me() * BLOCK; offset < nr_bytes; offset += NR_TASKLETS * BLOCK) {
        uint32_t length = nr_bytes - offset < BLOCK ? nr_bytes - offset : BLOCK;
        mram_read((__mram_ptr void const *)(uintptr_t)(a + offset), wa, length);
        mram_read((__mram_ptr void const *)(uintptr_t)(b + offset), wb, length);
        for (uint32_t i = 0; i < length / sizeof(int32_t); i++)
            wa[i] += wb[i];
        mram_write(wa, (__mram_ptr void *)(uintptr_t)(c + offset), length);
    }
    return 0;
}
