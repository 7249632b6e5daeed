/* gemm.c: one DPU's share of a layer Y = W X, tiled in WRAM, for the large mapping spaces.
 *
 * Compile-time choices (few, so that builds are few): T (int8_t or int32_t, -DT=...), ACC
 * (the accumulator, int32_t or int64_t, -DACC=...) and NR_TASKLETS. Everything else is a
 * run-time parameter the host writes before a launch:
 *   rows, k_bytes: the share of W, `rows` rows of `k_bytes` bytes, row-major at the start
 *     of the MRAM heap; then X, `n` vectors of `k_bytes` bytes each; then Y, `rows` rows
 *     of `n_pad` int32 sums (n rounded up to even, so that each row is whole 8 bytes);
 *   tile_k: bytes per DMA of a row of W or of a vector of X (8 to 2,048, divides k_bytes);
 *   tile_m, tile_n: rows of W and vectors of X held in WRAM at a time;
 *   order: 0 (output-stationary: a tile of sums is finished, then written; W is read once
 *     per tile of vectors) or 1 (weight-stationary: each block of W is read once and used
 *     for every vector; a tasklet keeps all `n` sums of its rows);
 *   resident: 1 keeps all of X in WRAM, loaded once by all tasklets together; 0 streams it.
 * Tasklets take tiles of rows in turn. ACC int64_t gives the same int32 sums modulo 2^32
 * (what the host checks), at the cost of 64-bit arithmetic on a 32-bit core. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#ifndef T
#define T int8_t
#endif
#ifndef ACC
#define ACC int32_t
#endif

__host uint32_t rows, k_bytes, n, tile_k, tile_m, tile_n, order, resident;
BARRIER_INIT(ready, NR_TASKLETS);
static uint8_t *x_all; /* X, when resident */

static void dot(const T *w, const T *x, uint32_t count, ACC *sum)
{
    ACC s = 0;
    for (uint32_t k = 0; k < count; k++)
        s += (ACC)w[k] * (ACC)x[k];
    *sum += s;
}

static void write_sums(const ACC *acc, int32_t *out, uint32_t count, uintptr_t to)
{
    for (uint32_t j = 0; j < count; j++)
        out[j] = (int32_t)acc[j];
    uint32_t bytes = (count * sizeof(int32_t) + 7) & ~7u; /* a DMA is whole 8 bytes */
    mram_write(out, (__mram_ptr void *)to, bytes);
}

int main(void)
{
    uintptr_t weights = (uintptr_t)DPU_MRAM_HEAP_POINTER;
    uintptr_t inputs = weights + (uintptr_t)rows * k_bytes;
    uint32_t n_pad = (n + 1) & ~1u;
    uintptr_t outputs = inputs + (uintptr_t)n * k_bytes;
    if (me() == 0) {
        mem_reset(); /* the WRAM heap outlives launches */
        x_all = resident ? mem_alloc(n * k_bytes) : 0;
    }
    barrier_wait(&ready);
    if (resident) {
        for (uint32_t at = me() * tile_k; at < n * k_bytes; at += NR_TASKLETS * tile_k)
            mram_read((__mram_ptr void const *)(inputs + at), x_all + at, tile_k);
        barrier_wait(&ready);
    }
    uint32_t per = tile_k / sizeof(T);
    uint32_t sums_per_row = order == 0 ? tile_n : n_pad;
    T *w = mem_alloc(tile_m * tile_k);
    T *x = resident ? 0 : mem_alloc(tile_n * tile_k);
    ACC *acc = mem_alloc(tile_m * sums_per_row * sizeof(ACC));
    int32_t *out = mem_alloc(((sums_per_row + 1) & ~1u) * sizeof(int32_t));
    for (uint32_t r0 = me() * tile_m; r0 < rows; r0 += NR_TASKLETS * tile_m) {
        uint32_t mr = rows - r0 < tile_m ? rows - r0 : tile_m;
        if (order == 0) {
            for (uint32_t n0 = 0; n0 < n; n0 += tile_n) {
                uint32_t nn = n - n0 < tile_n ? n - n0 : tile_n;
                for (uint32_t i = 0; i < mr * tile_n; i++)
                    acc[i] = 0;
                for (uint32_t at = 0; at < k_bytes; at += tile_k) {
                    for (uint32_t i = 0; i < mr; i++)
                        mram_read((__mram_ptr void const *)(weights + (uintptr_t)(r0 + i) * k_bytes + at),
                                  (uint8_t *)w + i * tile_k, tile_k);
                    for (uint32_t j = 0; j < nn; j++) {
                        const T *xj;
                        if (resident) {
                            xj = (const T *)(x_all + (n0 + j) * k_bytes + at);
                        } else {
                            xj = (const T *)((uint8_t *)x + j * tile_k);
                            mram_read((__mram_ptr void const *)(inputs + (uintptr_t)(n0 + j) * k_bytes + at),
                                      (void *)xj, tile_k);
                        }
                        for (uint32_t i = 0; i < mr; i++)
                            dot((const T *)((uint8_t *)w + i * tile_k), xj, per, &acc[i * tile_n + j]);
                    }
                }
                for (uint32_t i = 0; i < mr; i++)
                    write_sums(&acc[i * tile_n], out, nn,
                               outputs + ((uintptr_t)(r0 + i) * n_pad + n0) * sizeof(int32_t));
            }
        } else {
            for (uint32_t i = 0; i < mr * n_pad; i++)
                acc[i] = 0;
            for (uint32_t at = 0; at < k_bytes; at += tile_k) {
                for (uint32_t i = 0; i < mr; i++)
                    mram_read((__mram_ptr void const *)(weights + (uintptr_t)(r0 + i) * k_bytes + at),
                              (uint8_t *)w + i * tile_k, tile_k);
                for (uint32_t n0 = 0; n0 < n; n0 += tile_n) {
                    uint32_t nn = n - n0 < tile_n ? n - n0 : tile_n;
                    for (uint32_t j = 0; j < nn; j++) {
                        const T *xj;
                        if (resident) {
                            xj = (const T *)(x_all + (n0 + j) * k_bytes + at);
                        } else {
                            xj = (const T *)((uint8_t *)x + j * tile_k);
                            mram_read((__mram_ptr void const *)(inputs + (uintptr_t)(n0 + j) * k_bytes + at),
                                      (void *)xj, tile_k);
                        }
                        for (uint32_t i = 0; i < mr; i++)
                            dot((const T *)((uint8_t *)w + i * tile_k), xj, per, &acc[i * n_pad + n0 + j]);
                    }
                }
            }
            for (uint32_t i = 0; i < mr; i++)
                write_sums(&acc[i * n_pad], out, n_pad,
                           outputs + (uintptr_t)(r0 + i) * n_pad * sizeof(int32_t));
        }
    }
    return 0;
}
