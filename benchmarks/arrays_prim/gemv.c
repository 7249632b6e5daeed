/* gemv.c: y = W x for int32 (PrIM's GEMV): each tasklet takes a contiguous range of an
 * even number of rows, reads each row and x in blocks, and writes its results at the end
 * (64 at a time). W's share is at the heap, x after it, y after x. */
#include "common.h"

#define OUT 64 /* results per write: WRAM holds two blocks, these and a stack each */

__host uint32_t nr_cols;

int main(void)
{
    start();
    const uint32_t w = heap(), x = w + input_bytes, y = x + ROUND8(nr_cols * 4);
    int32_t *wrow = mem_alloc(BLOCK), *wx = mem_alloc(BLOCK), *wy = mem_alloc(OUT * 4);
    const uint32_t per = ((nr_elements + NR_TASKLETS - 1) / NR_TASKLETS + 1) & ~1u;
    uint32_t begin = me() * per, end = begin + per;
    if (begin > nr_elements) begin = nr_elements;
    if (end > nr_elements) end = nr_elements;
    uint32_t held = 0, first = begin;
    for (uint32_t row = begin; row < end; row++) {
        int32_t acc = 0;
        for (uint32_t col = 0; col < nr_cols; col += BLOCK / 4) {
            uint32_t n = nr_cols - col < BLOCK / 4 ? nr_cols - col : BLOCK / 4;
            mram_read(MRAM(w + (row * nr_cols + col) * 4), wrow, ROUND8(n * 4));
            mram_read(MRAM(x + col * 4), wx, ROUND8(n * 4));
            for (uint32_t k = 0; k < n; k++)
                acc += wrow[k] * wx[k];
        }
        wy[held++] = acc;
        if (held == OUT) {
            mram_write(wy, MRAM(y + first * 4), OUT * 4);
            first += held;
            held = 0;
        }
    }
    if (held)
        mram_write(wy, MRAM(y + first * 4), ROUND8(held * 4));
    return 0;
}
