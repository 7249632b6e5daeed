/* A DPU kernel that uses every runtime feature: tasklets, barriers, mutexes, a
 * semaphore, handshakes, mem_alloc, seqread, perfcounter, mram_read/write and
 * printf. Each DPU sums its MRAM input; results land in __host variables. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mram.h>
#include <mutex.h>
#include <perfcounter.h>
#include <sem.h>
#include <seqread.h>
#include <stdint.h>
#include <stdio.h>

#define BLOCK 256

__host uint32_t nr_elements;            /* uint64 elements in `input` */
__host uint64_t total;                  /* sum over all tasklets (mutex) */
__host uint64_t seq_total;              /* same sum read with seqread by tasklet 0 */
__host uint32_t handshakes;             /* handshake chain length completed */
__host uint32_t launches;               /* kept across launches */
__host uint64_t cycles;
__host uint64_t partial[NR_TASKLETS];   /* per-tasklet partial sums */
__mram_noinit uint64_t input[1 << 17];
__mram_noinit uint64_t output[NR_TASKLETS];
__mram uint64_t mram_constant = 0x1234567890abcdefULL;

BARRIER_INIT(everyone, NR_TASKLETS);
MUTEX_INIT(total_lock);
SEMAPHORE_INIT(tokens, 1);

int main(void)
{
    unsigned id = me();
    if (id == 0) {
        total = 0;
        handshakes = 0;
        launches++;
        mem_reset();
        perfcounter_config(COUNT_CYCLES, true);
    }
    barrier_wait(&everyone);

    uint64_t *cache = mem_alloc(BLOCK);
    uint64_t sum = 0;
    for (uint32_t first = id * (BLOCK / 8); first < nr_elements; first += NR_TASKLETS * (BLOCK / 8)) {
        mram_read(&input[first], cache, BLOCK);
        uint32_t count = nr_elements - first < BLOCK / 8 ? nr_elements - first : BLOCK / 8;
        for (uint32_t i = 0; i < count; i++)
            sum += cache[i];
    }
    partial[id] = sum;
    __dma_aligned uint64_t out = sum;
    mram_write(&out, &output[id], sizeof(out));

    mutex_lock(total_lock);
    total += sum;
    mutex_unlock(total_lock);

    sem_take(&tokens);
    sem_give(&tokens);

    /* A handshake chain: tasklet i waits for i+1, which notifies it. */
    if (id + 1 < NR_TASKLETS)
        if (handshake_wait_for(id + 1) == 0) {
            mutex_lock(total_lock);
            handshakes++;
            mutex_unlock(total_lock);
        }
    if (id > 0)
        handshake_notify();
    barrier_wait(&everyone);

    if (id == 0) {
        seqreader_t reader;
        uint64_t *value = seqread_init(seqread_alloc(), input, &reader);
        uint64_t seq = 0;
        for (uint32_t i = 0; i < nr_elements; i++) {
            seq += *value;
            value = seqread_get(value, sizeof(uint64_t), &reader);
        }
        seq_total = seq;
        cycles = perfcounter_get();
        printf("tasklets=%d total=%llu constant=%llx\n", NR_TASKLETS, (unsigned long long)total,
               (unsigned long long)mram_constant);
    }
    return 0;
}
