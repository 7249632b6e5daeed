/* The SDK's mutex pool example (test/5_mutex_pool; "Mutex pools" in the SDK
 * documentation): the histogram of vmutex_example.c, its bins guarded by a pool of 8
 * mutexes (bin b takes mutex b & 7). */
#include <defs.h>
#include <mram.h>
#include <mutex_pool.h>
#include <stdint.h>

#define BUFFER_SIZE (1024 * 1024)
#define NR_ELEMENTS_HIST (1 << 8)
#define NR_ELEMENTS_PER_TASKLET (BUFFER_SIZE / NR_TASKLETS)

__mram_noinit uint8_t input_table[BUFFER_SIZE];
__mram uint64_t histogram[NR_ELEMENTS_HIST];

MUTEX_POOL_INIT(my_mutex_pool, 8);

int main(void)
{
    for (unsigned int i = me() * NR_ELEMENTS_PER_TASKLET; i < (me() + 1) * NR_ELEMENTS_PER_TASKLET; ++i) {
        uint8_t elem = input_table[i];
        mutex_pool_lock(&my_mutex_pool, elem);
        histogram[elem]++;
        mutex_pool_unlock(&my_mutex_pool, elem);
    }
    return 0;
}
