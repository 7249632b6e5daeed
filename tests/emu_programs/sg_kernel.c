/* A DPU kernel for the host-header tests: it prints a line (for the log readers) and adds
 * `increment` to each 64-bit word of `area` (so transfers can be seen to reach the DPU). */
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <stdio.h>

__host uint32_t increment;
__host uint32_t words;
__mram_noinit uint64_t area[512];

int main(void)
{
    if (me() != 0)
        return 0;
    __dma_aligned uint64_t word;
    for (uint32_t i = 0; i < words && i < 512; i++) {
        mram_read(&area[i], &word, 8);
        word += increment;
        mram_write(&word, &area[i], 8);
    }
    printf("kernel ran: increment=%u words=%u\n", increment, words);
    return 0;
}
