/* A C++ DPU program using the runtime (DMA, a barrier, a mutex): the DPU headers give C
 * linkage to the runtime under C++. */
#include <defs.h>
#include <mram.h>
#include <barrier.h>
#include <mutex.h>
#include <stdint.h>
BARRIER_INIT(b, NR_TASKLETS);
MUTEX_INIT(m);
__host uint32_t total;
__mram_noinit uint64_t buf[16];
int main() {
    __dma_aligned uint64_t x[2] = {me(), 0};
    mram_write(x, &buf[me() * 2], 16);
    barrier_wait(&b);
    mutex_lock(m); total += 1; mutex_unlock(m);
    return 0;
}
