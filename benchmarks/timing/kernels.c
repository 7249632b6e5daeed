/* Microbenchmarks in the style of the PrIM characterisation, for the emulator's time
 * model. KERNEL selects one (compile with -DKERNEL=...):
 *   ARITH   `repeat` passes of  x[i] = x[i] OP scalar  over a WRAM buffer of T values
 *           per tasklet (OP: -DOP_ADD/SUB/MUL/DIV, T: -DTYPE=int32_t/int64_t/float/double)
 *   READ    every tasklet reads `repeat` blocks of `size` bytes from MRAM
 *   WRITE   every tasklet writes `repeat` blocks of `size` bytes to MRAM
 *   STREAM  COPY/ADD/SCALE/TRIAD (-DSTREAM_COPY ...) over int64 MRAM arrays, 1 KiB blocks
 * Tasklet 0 records the modelled cycles between two barriers around the measured work. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <perfcounter.h>
#include <stdint.h>

#define WRAM_VALUES 256 /* per tasklet */
#define MRAM_BYTES (1u << 20)
#define BLOCK 1024

__host uint32_t repeat;
__host uint32_t size;
__host uint64_t cycles;
__host uint64_t checksum;
BARRIER_INIT(start, NR_TASKLETS);
BARRIER_INIT(stop, NR_TASKLETS);

#if defined(KERNEL_ARITH)
TYPE values[NR_TASKLETS][WRAM_VALUES];

static void run(void)
{
    TYPE *x = values[me()];
#if defined(OP_MUL) || defined(OP_DIV)
    /* A 32-bit multiply's cost depends on its operands (the smaller one's bit length), a
     * division's on its quotient's bits. As PrIM's microbenchmark does, the scalar is the
     * number of values and the values are spread over the whole range (main), so the
     * scalar is the multiplier and the divider. */
    volatile TYPE scalar_source = (TYPE)WRAM_VALUES;
#else
    volatile TYPE scalar_source = (TYPE)3;
#endif
    TYPE scalar = scalar_source;
    for (uint32_t r = 0; r < repeat; r++)
        for (uint32_t i = 0; i < WRAM_VALUES; i++) {
#if defined(OP_ADD)
            x[i] = x[i] + scalar;
#elif defined(OP_SUB)
            x[i] = x[i] - scalar;
#elif defined(OP_MUL)
            x[i] = x[i] * scalar;
#else
            x[i] = x[i] / scalar;
#endif
        }
    checksum += (uint64_t)x[0];
}
#elif defined(KERNEL_READ) || defined(KERNEL_WRITE)
__mram_noinit uint8_t area[NR_TASKLETS][MRAM_BYTES / NR_TASKLETS];
__dma_aligned uint8_t buffer[NR_TASKLETS][2048];

static void run(void)
{
    uint32_t span = MRAM_BYTES / NR_TASKLETS / size * size;
    for (uint32_t r = 0, at = 0; r < repeat; r++, at = (at + size) % span) {
#if defined(KERNEL_READ)
        mram_read(&area[me()][at], buffer[me()], size);
#else
        mram_write(buffer[me()], &area[me()][at], size);
#endif
    }
}
#elif defined(KERNEL_STREAM)
#define ELEMENTS (MRAM_BYTES / 8)
__mram_noinit int64_t a[ELEMENTS], b[ELEMENTS], c[ELEMENTS];
__dma_aligned int64_t wa[NR_TASKLETS][BLOCK / 8], wb[NR_TASKLETS][BLOCK / 8];

static void run(void)
{
    volatile int64_t scalar_source = 3;
    int64_t scalar = scalar_source;
    int64_t *x = wa[me()], *y = wb[me()];
    for (uint32_t r = 0; r < repeat; r++)
        for (uint32_t at = me() * (BLOCK / 8); at < ELEMENTS; at += NR_TASKLETS * (BLOCK / 8)) {
            mram_read(&a[at], x, BLOCK);
#if defined(STREAM_ADD) || defined(STREAM_TRIAD)
            mram_read(&b[at], y, BLOCK);
#endif
            for (uint32_t i = 0; i < BLOCK / 8; i++) {
#if defined(STREAM_ADD)
                x[i] = x[i] + y[i];
#elif defined(STREAM_SCALE)
                x[i] = scalar * x[i];
#elif defined(STREAM_TRIAD)
                x[i] = x[i] + scalar * y[i];
#endif
            }
            mram_write(x, &c[at], BLOCK);
        }
}
#endif

int main(void)
{
#if defined(KERNEL_ARITH) && (defined(OP_MUL) || defined(OP_DIV))
    for (uint32_t i = 0, h = me() * 2654435761u + 1u; i < WRAM_VALUES; i++, h = h * 1664525u + 1013904223u)
        values[me()][i] = (TYPE)h;
#endif
    barrier_wait(&start);
    uint64_t begin = perfcounter_get();
    run();
    barrier_wait(&stop);
    if (me() == 0)
        cycles = perfcounter_get() - begin;
    return 0;
}
