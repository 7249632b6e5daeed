/* The SDK's virtual mutex example (test/4_vmutex; "Virtual mutexes" in the SDK
 * documentation): a histogram of a 1 MiB MRAM table of bytes, the tasklets sharing
 * the table, one virtual mutex for each of the 256 bins, all on one hardware mutex. */
#include <defs.h>
#include <mram.h>
#include <stdint.h>
#include <vmutex.h>

#define BUFFER_SIZE (1024 * 1024)
#define NR_ELEMENTS_HIST (1 << 8)
#define NR_ELEMENTS_PER_TASKLET (BUFFER_SIZE / NR_TASKLETS)

__mram_noinit uint8_t input_table[BUFFER_SIZE];
__mram uint64_t histogram[NR_ELEMENTS_HIST];

/* VMUTEX_INIT(name, number of virtual mutexes, number of hardware mutexes) */
VMUTEX_INIT(my_vmutex, NR_ELEMENTS_HIST, 1);

int main(void)
{
    for (unsigned int i = me() * NR_ELEMENTS_PER_TASKLET; i < (me() + 1) * NR_ELEMENTS_PER_TASKLET; ++i) {
        uint8_t elem = input_table[i];
        vmutex_lock(&my_vmutex, elem);
        histogram[elem]++;
        vmutex_unlock(&my_vmutex, elem);
    }
    return 0;
}
