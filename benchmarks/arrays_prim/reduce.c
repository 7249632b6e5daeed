/* reduce.c: the sum of int32 values as int64 (PrIM's RED): a partial per tasklet, then
 * tasklet 0 adds them; the host adds the DPUs'. */
#include "common.h"

__host int64_t total;
static int64_t partial[NR_TASKLETS];

int main(void)
{
    start();
    const uint32_t a = heap();
    int32_t *buffer = mem_alloc(BLOCK);
    const uint32_t bytes = nr_elements * 4;
    int64_t sum = 0;
    for (uint32_t offset = me() * BLOCK; offset < bytes; offset += NR_TASKLETS * BLOCK) {
        uint32_t length = bytes - offset < BLOCK ? bytes - offset : BLOCK;
        mram_read(MRAM(a + offset), buffer, ROUND8(length));
        for (uint32_t i = 0; i < length / 4; i++)
            sum += buffer[i];
    }
    partial[me()] = sum;
    barrier_wait(&barrier);
    if (me() == 0) {
        int64_t all = 0;
        for (unsigned t = 0; t < NR_TASKLETS; t++)
            all += partial[t];
        total = all;
    }
    return 0;
}
