/* scan.c: the inclusive running sum of int32 values as int64, in two launches (PrIM's
 * SCAN-SSA): pass 0 sums each tasklet's contiguous chunk and tasklet 0 turns the sums
 * into each tasklet's offset within the DPU (kept in WRAM) and the DPU's total; the host
 * sets each DPU's base; pass 1 scans each chunk from base + offset. */
#include "common.h"

#define PER_BLOCK (BLOCK / 8) /* int64 outputs per block; inputs take half as many bytes */

__host uint32_t pass;
__host int64_t dpu_total, dpu_base;
static int64_t offsets[NR_TASKLETS];

int main(void)
{
    start();
    const uint32_t in = heap(), out = in + input_bytes;
    int32_t *win = mem_alloc(PER_BLOCK * 4);
    int64_t *wout = mem_alloc(BLOCK);
    const uint32_t blocks = (nr_elements + PER_BLOCK - 1) / PER_BLOCK;
    const uint32_t per = (blocks + NR_TASKLETS - 1) / NR_TASKLETS * PER_BLOCK;
    uint32_t begin = me() * per, end = begin + per;
    if (begin > nr_elements) begin = nr_elements;
    if (end > nr_elements) end = nr_elements;
    int64_t sum = pass ? dpu_base + offsets[me()] : 0;
    for (uint32_t i0 = begin; i0 < end; i0 += PER_BLOCK) {
        uint32_t n = end - i0 < PER_BLOCK ? end - i0 : PER_BLOCK;
        mram_read(MRAM(in + i0 * 4), win, ROUND8(n * 4));
        if (!pass) {
            for (uint32_t i = 0; i < n; i++)
                sum += win[i];
            continue;
        }
        for (uint32_t i = 0; i < n; i++) {
            sum += win[i];
            wout[i] = sum;
        }
        mram_write(wout, MRAM(out + i0 * 8), n * 8);
    }
    if (pass)
        return 0;
    offsets[me()] = sum;
    barrier_wait(&barrier);
    if (me() == 0) {
        int64_t running = 0;
        for (unsigned t = 0; t < NR_TASKLETS; t++) {
            int64_t chunk = offsets[t];
            offsets[t] = running;
            running += chunk;
        }
        dpu_total = running;
    }
    return 0;
}
