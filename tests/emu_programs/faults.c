/* A DPU kernel that breaks one DPU rule, chosen by the host through `mode`, in
 * tasklet `culprit`. Mode 0 runs cleanly; mode 9 spins for `spin_ms` (to test
 * host accesses while running). */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <perfcounter.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__host uint32_t mode;
__host uint32_t culprit;
__host uint32_t spin_ms;
__host uint32_t finished;
__host uint8_t small_symbol[6];
__mram_noinit uint64_t buffer[1024];
BARRIER_INIT(everyone, NR_TASKLETS);

static uint32_t recurse(uint32_t depth) /* unbounded recursion: a stack overflow */
{
    volatile uint8_t frame[512];
    frame[depth % 512] = (uint8_t)depth;
    return recurse(depth + 1) + frame[0];
}

int main(void)
{
    __dma_aligned uint64_t cache[32];
    if (me() == culprit) {
        switch (mode) {
        case 1: mram_read(buffer, cache, 12); break;                         /* size not x8 */
        case 2: mram_read((char *)buffer + 4, cache, 16); break;             /* unaligned */
        case 3: mram_read((void *)(uintptr_t)0x0C000000u, cache, 8); break;  /* beyond 64 MiB */
        case 4: mem_alloc(70000); break;                                     /* WRAM exhausted */
        case 5: *(volatile uint32_t *)(uintptr_t)16 = 1; break;              /* bad pointer */
        case 6: abort();
        case 7: mram_write(cache, buffer, 4096); break;                      /* size > 2048 */
        case 8: barrier_wait(&everyone); break; /* the others never arrive: deadlock */
        case 10: recurse(0); break;
        case 9: {
            perfcounter_config(COUNT_CYCLES, true);
            while (perfcounter_get() < (uint64_t)spin_ms * (CLOCKS_PER_SEC / 1000))
                ;
            break;
        }
        }
    }
    finished = 1;
    return 0;
}
