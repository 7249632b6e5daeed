/* first_steps.c: every DPU scales its own values by a factor the host broadcasts.
 *
 * The host writes `factor` (WRAM) and `values` (MRAM); each tasklet scales one slice of
 * `values` in place, and tasklet 0 prints a line to the DPU's log. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>

#define N 1024                    /* int32 values per DPU */
#define SLICE (N / NR_TASKLETS)   /* values per tasklet */

__host int32_t factor;            /* written by the host: broadcast() */
__mram_noinit int32_t values[N];  /* written and read by the host: scatter()/gather() */

__dma_aligned int32_t buffer[NR_TASKLETS][SLICE]; /* one WRAM buffer per tasklet */

int main(void)
{
    unsigned t = me();
    mram_read(&values[t * SLICE], buffer[t], SLICE * sizeof(int32_t));
    for (unsigned i = 0; i < SLICE; i++)
        buffer[t][i] *= factor;
    mram_write(buffer[t], &values[t * SLICE], SLICE * sizeof(int32_t));
    if (t == 0)
        printf("tasklet 0 of %d: first value is now %d\n", NR_TASKLETS, buffer[0][0]);
    return 0;
}
