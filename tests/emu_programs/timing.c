/* Small kernels with known costs for the time model. `mode`:
 *   1  compute: `rounds` rounds of a loop in every tasklet, no DMA
 *   2  DMA: tasklet 0 reads 2048 bytes from MRAM `rounds` times
 *   3  barrier: tasklet 0 computes, the others wait for it at a barrier
 *   4  DMA from every tasklet: each reads 2048 bytes `rounds` times
 *   5  a delay loop of `rounds` __builtin_nop_() in every tasklet
 *   6  a shared counter: every tasklet adds to it `rounds` times under one mutex
 *   7  32-bit multiplies: `rounds` products of `operand` by `operand2` in every tasklet
 *   8  8-bit multiplies: the same with uint8_t operands
 *   9  the increments of mode 6, each tasklet on a counter of its own, without the mutex
 *  10  32-bit unsigned divisions: `rounds` quotients of `operand` by `operand2`
 *  11  the same, signed
 *  12  `rounds` passes of x[i] += s over 64 int32 values of WRAM (PrIM's ADD microbenchmark)
 *  13  the same over int64 values
 *  14  a mutex held across a DMA: every tasklet reads 8 bytes of MRAM `rounds` times, each
 *      read inside the critical section of one mutex
 * Each tasklet records the instructions issued while it ran (from the performance
 * counter, which counts for the whole DPU) and the cycle count it sees at its end. */
#include <barrier.h>
#include <built_ins.h>
#include <defs.h>
#include <mram.h>
#include <mutex.h>
#include <perfcounter.h>
#include <stdint.h>

__host uint32_t mode;
__host uint32_t rounds;
__host uint64_t instructions[NR_TASKLETS];
__host uint64_t cycles_at_end[NR_TASKLETS];
__host uint32_t checksum[NR_TASKLETS];
__host uint32_t operand, operand2;
__host uint32_t shared_counter;
__host uint32_t own_counter[NR_TASKLETS];
MUTEX_INIT(counter_lock);
__mram_noinit uint8_t table[2048];
__dma_aligned uint8_t buffer[NR_TASKLETS][2048];
BARRIER_INIT(everyone, NR_TASKLETS);

/* Products of operands the compiler cannot see (volatile), one per round. */
static uint32_t multiply(uint32_t n)
{
    volatile uint32_t a = operand, b = operand2;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += a * b;
    return sum;
}

static uint32_t multiply_bytes(uint32_t n)
{
    volatile uint8_t a = (uint8_t)operand, b = (uint8_t)operand2;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += (uint32_t)a * b;
    return sum;
}

static uint32_t divide(uint32_t n)
{
    volatile uint32_t a = operand, b = operand2;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += a / b;
    return sum;
}

static uint32_t divide_signed(uint32_t n)
{
    volatile int32_t a = (int32_t)operand, b = (int32_t)operand2;
    int32_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += a / b;
    return (uint32_t)sum;
}

/* The ADD passes work in the tasklet's DMA buffer: the program still fits a v1A DPU's WRAM
 * at 24 tasklets (the chip-version test builds it so). */

static uint32_t add_passes32(uint32_t n)
{
    volatile int32_t source = (int32_t)operand;
    int32_t s = source, *x = (int32_t *)buffer[me()];
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t i = 0; i < 64; i++)
            x[i] += s;
    return (uint32_t)x[0];
}

static uint32_t add_passes64(uint32_t n)
{
    volatile int64_t source = operand;
    int64_t s = source, *x = (int64_t *)buffer[me()];
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t i = 0; i < 64; i++)
            x[i] += s;
    return (uint32_t)x[0];
}

static uint32_t compute(uint32_t n)
{
    uint32_t x = me() + 1;
    for (uint32_t i = 0; i < n; i++)
        x = x * 5 + (x >> 3);
    return x;
}

int main(void)
{
    uint32_t id = me();
    perfcounter_config(COUNT_INSTRUCTIONS, false);
    uint64_t before = perfcounter_get();
    if (mode == 1) {
        checksum[id] = compute(rounds);
    } else if (mode == 2 && id == 0) {
        for (uint32_t i = 0; i < rounds; i++)
            mram_read(table, buffer[id], 2048);
    } else if (mode == 4) {
        for (uint32_t i = 0; i < rounds; i++)
            mram_read(table, buffer[id], 2048);
    } else if (mode == 5) {
        for (uint32_t i = 0; i < rounds; i++)
            __builtin_nop_();
    } else if (mode == 6) {
        for (uint32_t i = 0; i < rounds; i++) {
            mutex_lock(counter_lock);
            shared_counter++;
            mutex_unlock(counter_lock);
        }
    } else if (mode == 14) {
        for (uint32_t i = 0; i < rounds; i++) {
            mutex_lock(counter_lock);
            mram_read(table, buffer[id], 8);
            mutex_unlock(counter_lock);
        }
    } else if (mode == 9) {
        for (uint32_t i = 0; i < rounds; i++) {
            volatile uint32_t *counter = &own_counter[id];
            (*counter)++;
        }
    } else if (mode == 7) {
        checksum[id] = multiply(rounds);
    } else if (mode == 8) {
        checksum[id] = multiply_bytes(rounds);
    } else if (mode == 12) {
        checksum[id] = add_passes32(rounds);
    } else if (mode == 13) {
        checksum[id] = add_passes64(rounds);
    } else if (mode == 10) {
        checksum[id] = divide(rounds);
    } else if (mode == 11) {
        checksum[id] = divide_signed(rounds);
    } else if (mode == 3) {
        if (id == 0)
            checksum[id] = compute(rounds);
        barrier_wait(&everyone);
    }
    perfcounter_config(COUNT_INSTRUCTIONS, false); /* the mode is the DPU's, not the tasklet's */
    instructions[id] = perfcounter_get() - before;
    perfcounter_config(COUNT_CYCLES, false);
    cycles_at_end[id] = perfcounter_get();
    return 0;
}
