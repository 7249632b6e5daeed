/* DMA requests that break a documented rule; the host picks one with `mode`, and reads
 * back what landed in `out` (filled with 0xee first) or in MRAM. The program has no
 * __mram variables, so its MRAM heap starts at MRAM offset 0. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <string.h>

__host uint32_t mode;
__host __dma_aligned uint8_t out[4096];

#define HEAP ((__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER)

int main(void)
{
    if (me() != 0)
        return 0;
    memset(out, 0xee, sizeof(out));
    switch (mode) {
    case 1: mram_read(HEAP, out, 12); break;                              /* size 12 */
    case 2: mram_read(HEAP, out, 1); break;                               /* size 1 */
    case 3: mram_read(HEAP, out, 4096); break;                            /* size 4096 */
    case 4: mram_read(HEAP, out, 2056); break;                            /* size 2056 */
    case 5: mram_read(HEAP + 4, out, 16); break;                          /* MRAM unaligned */
    case 6: mram_read(HEAP, out + 4, 16); break;                          /* WRAM unaligned */
    case 7: mram_read((__mram_ptr void *)(uintptr_t)0x108, out, 16); break; /* heap offset */
    case 8: mram_write(out, (__mram_ptr void *)(uintptr_t)0x200, 8); break; /* heap offset */
    case 9: mram_read((__mram_ptr void *)(uintptr_t)0x0bfffff8u, out, 16); break; /* past the end */
    default: mram_read(HEAP, out, 16); break;                             /* by the rules */
    }
    return 0;
}
