/* first_steps.c: every DPU scales its own values by a factor the host broadcasts.
 *
 * The host writes `factor` (WRAM) and `values` (MRAM); the tasklets scale `values` in
 * place, block by block, and tasklet 0 prints a line to the DPU's log. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>

#define N 1024                    /* int32 values per DPU */
#define BLOCK 64                  /* values per mram_read: 256 bytes, a multiple of 8 */

__host int32_t factor;            /* written by the host: broadcast() */
__mram_noinit int32_t values[N];  /* written and read by the host: scatter()/gather() */

__dma_aligned int32_t buffer[NR_TASKLETS][BLOCK]; /* one WRAM buffer per tasklet */

int main(void)
{
    unsigned t = me();
    int32_t first = 0;
    /* Tasklet t scales blocks t, t + NR_TASKLETS, t + 2 * NR_TASKLETS ...: every value
     * once, whatever the number of tasklets (1 to 24). */
    for (unsigned b = t; b < N / BLOCK; b += NR_TASKLETS) {
        mram_read(&values[b * BLOCK], buffer[t], sizeof(buffer[t]));
        for (unsigned i = 0; i < BLOCK; i++)
            buffer[t][i] *= factor;
        mram_write(buffer[t], &values[b * BLOCK], sizeof(buffer[t]));
        if (b == 0)
            first = buffer[t][0];
    }
    if (t == 0)
        printf("tasklet 0 of %d: first value is now %d\n", NR_TASKLETS, first);
    return 0;
}
