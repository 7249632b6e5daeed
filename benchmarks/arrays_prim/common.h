/* common.h: what the hand-written PrIM-style kernels of benchmarks/arrays.py share.
 * The host puts the inputs at DPU_MRAM_HEAP_POINTER, one after another (each padded to
 * 8 bytes), sets nr_elements per DPU, and reads the outputs after the inputs. Tasklets
 * take BLOCK-byte blocks in turn, as PrIM's kernels do. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

#define BLOCK 1024
#define ROUND8(x) (((x) + 7u) & ~7u)
#define MRAM(address) ((__mram_ptr void *)(uintptr_t)(address))

__host uint32_t nr_elements; /* elements (GEMV: rows) on this DPU */
__host uint32_t input_bytes; /* bytes of each input's share (a multiple of 8) */

BARRIER_INIT(barrier, NR_TASKLETS);

static inline uint32_t heap(void) { return (uint32_t)(uintptr_t)DPU_MRAM_HEAP_POINTER; }
static inline void start(void)
{
    if (me() == 0)
        mem_reset();
    barrier_wait(&barrier);
}
