/* vecadd.c: C = A + B, int32 (PrIM's VA). */
#include "common.h"

int main(void)
{
    start();
    const uint32_t a = heap(), b = a + input_bytes, c = b + input_bytes;
    int32_t *wa = mem_alloc(BLOCK), *wb = mem_alloc(BLOCK);
    const uint32_t bytes = nr_elements * 4;
    for (uint32_t offset = me() * BLOCK; offset < bytes; offset += NR_TASKLETS * BLOCK) {
        uint32_t length = bytes - offset < BLOCK ? bytes - offset : BLOCK;
        mram_read(MRAM(a + offset), wa, ROUND8(length));
        mram_read(MRAM(b + offset), wb, ROUND8(length));
        for (uint32_t i = 0; i < length / 4; i++)
            wa[i] += wb[i];
        mram_write(wa, MRAM(c + offset), ROUND8(length));
    }
    return 0;
}
