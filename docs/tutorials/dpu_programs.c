/* dpu_programs.c: the sum and the maximum of the uint32 values a DPU holds in MRAM.
 *
 * Tasklets take BLOCK-byte blocks in turn, copy each into WRAM with mram_read, add it to
 * their own partial sum and update a shared maximum under a mutex. After a barrier,
 * tasklet 0 adds the partial sums and publishes the results for the host. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex.h>
#include <stdint.h>
#include <stdio.h>

#ifndef BLOCK
#define BLOCK 256 /* bytes per mram_read: a multiple of 8, at most 2048 */
#endif

__host uint32_t nr_bytes;         /* input: bytes of data in this DPU (a multiple of 8) */
__host uint64_t sum;              /* outputs */
__host uint32_t maximum;

uint64_t partial[NR_TASKLETS];    /* WRAM, shared by the tasklets: one slot each */
BARRIER_INIT(all_done, NR_TASKLETS);
MUTEX_INIT(maximum_lock);

int main(void)
{
    unsigned t = me();
    if (t == 0) {
        mem_reset();              /* the WRAM heap survives launches: start afresh */
        maximum = 0;
    }
    barrier_wait(&all_done);      /* nobody allocates or updates before the reset */

    uint32_t *block = mem_alloc(BLOCK);  /* this tasklet's WRAM buffer, 8-aligned */
    uint32_t base = (uint32_t)DPU_MRAM_HEAP_POINTER;  /* the data starts here */
    uint64_t my_sum = 0;
    uint32_t my_max = 0;
    for (uint32_t offset = t * BLOCK; offset < nr_bytes; offset += NR_TASKLETS * BLOCK) {
        uint32_t length = nr_bytes - offset < BLOCK ? nr_bytes - offset : BLOCK;
        mram_read((__mram_ptr void const *)(uintptr_t)(base + offset), block, length);
        for (uint32_t i = 0; i < length / sizeof(uint32_t); i++) {
            my_sum += block[i];
            if (block[i] > my_max)
                my_max = block[i];
        }
    }
    partial[t] = my_sum;
    mutex_lock(maximum_lock);     /* one tasklet at a time updates the shared maximum */
    if (my_max > maximum)
        maximum = my_max;
    mutex_unlock(maximum_lock);

    barrier_wait(&all_done);      /* every partial sum is written */
    if (t == 0) {
        sum = 0;
        for (unsigned i = 0; i < NR_TASKLETS; i++)
            sum += partial[i];
        printf("%u bytes: sum %llu, maximum %u\n", nr_bytes, (unsigned long long)sum, maximum);
    }
    return 0;
}
