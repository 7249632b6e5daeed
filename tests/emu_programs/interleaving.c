/* Patterns whose result depends on how tasklets interleave; the host picks one with
 * `mode` and reads `result` (and `seen`, one word per tasklet).
 *   1  count after barrier: every tasklet reads a shared counter after a barrier; the
 *      last one updates it after its own mram_write. Hardware: everyone sees 0.
 *   2  spin-wait: tasklet 0 spins on a WRAM flag that the last tasklet sets after DMAs.
 *   3  a race: read a shared word, DMA, write it back plus one (lost updates).
 *   4  the same under a mutex: race-free.
 *   5  a barrier built at run time by writing the SDK's four fields, used twice.
 *   6  a byte array of mutexes; each tasklet holds its own and its neighbour's at once.
 *   7  tasklet 0 computes in short stretches between DMAs while tasklet 1 runs DMAs and
 *      checks that it only ever sees tasklet 0 at a DMA (`result` 1 if it saw it mid-way,
 *      seen[1] its rounds): a tasklet that reaches switch points is not preempted.
 *   8  each tasklet sets its own SSE and x87 rounding mode (id % 4: nearest, down, up,
 *      toward zero), then checks them after each of its DMAs (`result` counts the
 *      changes it found) and leaves the bits of 1.0f / 3.0f in seen[id]: a tasklet's
 *      floating-point modes are its own, as the switch keeps them.
 */
#include <atomic_bit.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <mutex.h>
#include <stdint.h>

#define ROUNDS 8
#define NR_LOCKS 8
#define STRETCHES 2000     /* mode 7: tasklet 0's stretches of compute, */
#define STRETCH_STEPS 5000 /* each some microseconds of host time */

__host uint32_t mode;
__host uint32_t result;
__host uint32_t seen[NR_TASKLETS];
__host uint32_t lock_bytes_touched;
__mram_noinit uint64_t scratch[NR_TASKLETS][8];

BARRIER_INIT(start, NR_TASKLETS);
MUTEX_INIT(counter_mutex);
ATOMIC_BIT_INIT(locks)[NR_LOCKS];
ATOMIC_BIT_INIT(runtime_barrier_bit);
barrier_t runtime_barrier;
uint32_t shared_counter;
uint32_t per_lock[NR_LOCKS];
volatile uint32_t flag;
volatile uint32_t progress;
__dma_aligned uint8_t large[2048];

_Static_assert(sizeof(ATOMIC_BIT_GET(locks)) == NR_LOCKS, "ATOMIC_BIT_INIT(x)[N] is an array");
_Static_assert(sizeof(barrier_t) == 4, "barrier_t is the SDK's four bytes");

/* The emulator's host: each tasklet's MXCSR and x87 control words (mode 8). */
static uint32_t sse_control(void)
{
    uint32_t word;
    __asm__ volatile("stmxcsr %0" : "=m"(word));
    return word;
}

static uint16_t x87_control(void)
{
    uint16_t word;
    __asm__ volatile("fnstcw %0" : "=m"(word));
    return word;
}

static void dma(void)
{
    __dma_aligned uint64_t buffer[8] = {me()};
    mram_write(buffer, scratch[me()], sizeof(buffer));
}

int main(void)
{
    uint32_t id = me();
    if (id == 0) {
        shared_counter = 0;
        flag = 0;
        result = 0;
        runtime_barrier.wait_queue = 0xff;
        runtime_barrier.count = NR_TASKLETS;
        runtime_barrier.initial_count = NR_TASKLETS;
        runtime_barrier.lock = (uint8_t)(uintptr_t)&ATOMIC_BIT_GET(runtime_barrier_bit);
        for (int i = 0; i < NR_LOCKS; i++)
            per_lock[i] = 0;
    }
    barrier_wait(&start);
    switch (mode) {
    case 1: {
        uint32_t count = shared_counter;
        dma();
        if (id == NR_TASKLETS - 1)
            shared_counter = count + NR_TASKLETS;
        seen[id] = count;
        barrier_wait(&start);
        result = shared_counter;
        break;
    }
    case 2:
        if (id == 0) {
            while (flag == 0)
                ; /* no switch point: only the hardware-like preemption lets the others run */
            result = 1;
        } else if (id == NR_TASKLETS - 1) {
            dma();
            dma();
            flag = 1;
        }
        break;
    case 3:
    case 4:
        for (int round = 0; round < ROUNDS; round++) {
            if (mode == 4)
                mutex_lock(counter_mutex);
            uint32_t value = shared_counter;
            dma();
            shared_counter = value + 1;
            if (mode == 4)
                mutex_unlock(counter_mutex);
        }
        barrier_wait(&start);
        result = shared_counter;
        break;
    case 5:
        for (int phase = 1; phase <= 2; phase++) {
            seen[id] = (uint32_t)phase;
            if (id % 2)
                dma();
            barrier_wait(&runtime_barrier);
            for (int other = 0; other < NR_TASKLETS; other++)
                if (seen[other] < (uint32_t)phase)
                    result = 0xbad;
            barrier_wait(&runtime_barrier);
        }
        break;
    case 7:
        if (id == 0) {
            for (int stretch = 0; stretch < STRETCHES; stretch++) {
                for (int step = 0; step < STRETCH_STEPS; step++)
                    progress++;
                dma();
            }
            flag = 1;
        } else if (id == 1) {
            while (flag == 0) {
                if (progress % STRETCH_STEPS != 0)
                    result = 1;
                seen[1]++;
                mram_read(scratch, large, sizeof(large));
            }
        }
        break;
    case 8: {
        uint32_t rounding = id % 4; /* the RC field's encoding in both control words */
        uint32_t sse = (sse_control() & ~0x6000u) | rounding << 13;
        uint16_t x87 = (uint16_t)((x87_control() & ~0x0c00u) | rounding << 10);
        __asm__ volatile("ldmxcsr %0" : : "m"(sse));
        __asm__ volatile("fldcw %0" : : "m"(x87));
        volatile float one = 1.0f;
        float third = 0.0f;
        uint32_t changed = 0;
        for (int round = 0; round < ROUNDS; round++) {
            dma();
            changed += sse_control() != sse || x87_control() != x87;
            third = one / 3.0f;
        }
        __builtin_memcpy(&seen[id], &third, sizeof(third));
        barrier_wait(&start);
        __atomic_fetch_add(&result, changed, __ATOMIC_RELAXED);
        break;
    }
    case 6: {
        uint8_t *first = &ATOMIC_BIT_GET(locks)[id % NR_LOCKS];
        uint8_t *second = &ATOMIC_BIT_GET(locks)[(id + 1) % NR_LOCKS];
        if (first > second) {
            uint8_t *swap = first;
            first = second;
            second = swap;
        }
        for (int round = 0; round < ROUNDS; round++) {
            mutex_lock(first);
            mutex_lock(second);
            uint32_t a = per_lock[id % NR_LOCKS], b = per_lock[(id + 1) % NR_LOCKS];
            dma();
            per_lock[id % NR_LOCKS] = a + 1;
            per_lock[(id + 1) % NR_LOCKS] = b + 1;
            mutex_unlock(second);
            mutex_unlock(first);
        }
        barrier_wait(&start);
        if (id == 0) {
            for (int i = 0; i < NR_LOCKS; i++) {
                result += per_lock[i];
                lock_bytes_touched |= ATOMIC_BIT_GET(locks)[i];
            }
        }
        break;
    }
    }
    return 0;
}
