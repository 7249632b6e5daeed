/* checksum.c: the 32-bit checksum (sum of all bytes, modulo 2^32) of a buffer in MRAM.
 *
 * Each tasklet sums the bytes of its BLOCK-byte blocks into checksums[me()]; tasklet 0
 * then prints the DPU's checksum and the cycles the performance counter saw, which the
 * host reads from the DPU's log.
 */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <perfcounter.h>
#include <stdint.h>
#include <stdio.h>

#ifndef BLOCK
#define BLOCK (NR_TASKLETS > 16 ? 1024 : 2048) /* WRAM: a block and a stack each */
#endif

__host uint32_t nr_bytes;                /* bytes of the buffer on this DPU */
__host uint32_t checksums[NR_TASKLETS]; /* one per tasklet */

BARRIER_INIT(barrier, NR_TASKLETS);

int main(void)
{
    if (me() == 0) {
        mem_reset();
        perfcounter_config(COUNT_CYCLES, true);
    }
    barrier_wait(&barrier);

    uint32_t data = (uint32_t)DPU_MRAM_HEAP_POINTER;
    uint8_t *buffer = mem_alloc(BLOCK);
    uint32_t sum = 0;
    for (uint32_t offset = me() * BLOCK; offset < nr_bytes; offset += NR_TASKLETS * BLOCK) {
        uint32_t length = nr_bytes - offset < BLOCK ? nr_bytes - offset : BLOCK;
        mram_read((__mram_ptr void const *)(uintptr_t)(data + offset), buffer, length);
        for (uint32_t i = 0; i < length; i++)
            sum += buffer[i];
    }
    checksums[me()] = sum;

    barrier_wait(&barrier);
    if (me() == 0) {
        uint32_t all = 0;
        for (unsigned t = 0; t < NR_TASKLETS; t++)
            all += checksums[t];
        printf("checksum 0x%08x in %lu cycles\n", (unsigned)all, (unsigned long)perfcounter_get());
    }
    return 0;
}
