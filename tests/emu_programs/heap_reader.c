/* Sums the first `count` uint32 words of the MRAM heap into `sum`; its own __mram and
 * WRAM variables must be initialised by the load. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t count;
__host uint64_t sum;
__host uint32_t wram_initialised = 0x1234;
__mram uint64_t mram_initialised[2] = {0x5678, 0x9abc};

int main(void)
{
    if (me() != 0)
        return 0;
    __dma_aligned uint32_t block[64];
    sum = 0;
    for (uint32_t done = 0; done < count; done += 64) {
        mram_read((__mram_ptr uint8_t *)DPU_MRAM_HEAP_POINTER + done * 4, block, sizeof(block));
        for (uint32_t i = 0; i < 64 && done + i < count; i++)
            sum += block[i];
    }
    return 0;
}
