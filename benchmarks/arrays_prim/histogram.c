/* histogram.c: 256 equal bins of float32 values over [0, 1] (PrIM's HST-S): a histogram
 * per tasklet in WRAM, added up by tasklet 0. */
#include "common.h"

#define BINS 256

__host uint32_t counts[BINS];
static uint32_t local[NR_TASKLETS][BINS];

int main(void)
{
    start();
    for (uint32_t b = 0; b < BINS; b++)
        local[me()][b] = 0;
    barrier_wait(&barrier);
    const uint32_t a = heap();
    float *buffer = mem_alloc(BLOCK);
    uint32_t *hist = local[me()];
    const uint32_t bytes = nr_elements * 4;
    for (uint32_t offset = me() * BLOCK; offset < bytes; offset += NR_TASKLETS * BLOCK) {
        uint32_t length = bytes - offset < BLOCK ? bytes - offset : BLOCK;
        mram_read(MRAM(a + offset), buffer, ROUND8(length));
        for (uint32_t i = 0; i < length / 4; i++) {
            float v = buffer[i];
            if (v >= 0.0f && v <= 1.0f) {
                uint32_t b = (uint32_t)(v * BINS);
                hist[b < BINS ? b : BINS - 1]++;
            }
        }
    }
    barrier_wait(&barrier);
    if (me() == 0)
        for (uint32_t b = 0; b < BINS; b++) {
            uint32_t sum = 0;
            for (unsigned t = 0; t < NR_TASKLETS; t++)
                sum += local[t][b];
            counts[b] = sum;
        }
    return 0;
}
