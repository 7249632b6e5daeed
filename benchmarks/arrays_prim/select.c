/* select.c: the int32 values whose bool mask byte is set, in order (PrIM's SEL, with a
 * mask): each tasklet compacts its contiguous chunk to the chunk's start and counts. */
#include "common.h"

#define PER_BLOCK (BLOCK / 4)

__host uint32_t kept[NR_TASKLETS];

int main(void)
{
    start();
    const uint32_t in = heap(), mask = in + input_bytes;
    const uint32_t out = mask + ROUND8(input_bytes / 4);
    int32_t *win = mem_alloc(BLOCK), *wout = mem_alloc(BLOCK);
    uint8_t *wmask = mem_alloc(PER_BLOCK);
    const uint32_t blocks = (nr_elements + PER_BLOCK - 1) / PER_BLOCK;
    const uint32_t per = (blocks + NR_TASKLETS - 1) / NR_TASKLETS * PER_BLOCK;
    uint32_t begin = me() * per, end = begin + per;
    if (begin > nr_elements) begin = nr_elements;
    if (end > nr_elements) end = nr_elements;
    uint32_t held = 0, written = begin;
    for (uint32_t i0 = begin; i0 < end; i0 += PER_BLOCK) {
        uint32_t n = end - i0 < PER_BLOCK ? end - i0 : PER_BLOCK;
        mram_read(MRAM(in + i0 * 4), win, ROUND8(n * 4));
        mram_read(MRAM(mask + i0), wmask, ROUND8(n));
        for (uint32_t i = 0; i < n; i++) {
            if (wmask[i]) {
                wout[held++] = win[i];
                if (held == PER_BLOCK) {
                    mram_write(wout, MRAM(out + written * 4), BLOCK);
                    written += PER_BLOCK;
                    held = 0;
                }
            }
        }
    }
    if (held)
        mram_write(wout, MRAM(out + written * 4), ROUND8(held * 4));
    kept[me()] = written - begin + held;
    return 0;
}
