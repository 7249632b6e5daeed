/* The SDK's MRAM examples (test/9_simple_mram_access; "MRAM accesses" in the SDK
 * documentation).
 *
 * Direct access: each tasklet fills a 256-byte WRAM buffer (byte i = i + me()), writes
 * it to its own 256 bytes of an MRAM array with mram_write, reads them back into a
 * second buffer with mram_read and compares; status[t] is 0 when they matched, else 1
 * (the documentation's example returns 1 on a mismatch).
 *
 * Implicit access: tasklet 0 stores 0, 2, 4, 6 into an MRAM variable by plain
 * assignment and reads them back into a WRAM variable the host can read. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define BUFFER_SIZE 256

uint8_t __mram_noinit mram_array[NR_TASKLETS * BUFFER_SIZE];
__host uint32_t status[NR_TASKLETS];

__mram_noinit uint32_t mram_values[4];
__host uint32_t output[4];

int main(void)
{
    __dma_aligned uint8_t input[BUFFER_SIZE];
    __dma_aligned uint8_t copy[BUFFER_SIZE];
    __mram_ptr uint8_t *mine = &mram_array[me() * BUFFER_SIZE];

    for (int i = 0; i < BUFFER_SIZE; i++)
        input[i] = (uint8_t)(i + me());
    mram_write(input, mine, sizeof(input));
    mram_read(mine, copy, sizeof(copy));
    status[me()] = 0;
    for (int i = 0; i < BUFFER_SIZE; i++)
        if (copy[i] != (uint8_t)(i + me()))
            status[me()] = 1;

    if (me() == 0) {
        static const uint32_t values[4] = {0, 2, 4, 6};
        for (int i = 0; i < 4; i++)
            mram_values[i] = values[i];
        for (int i = 0; i < 4; i++)
            output[i] = mram_values[i];
    }
    return (int)status[me()];
}
