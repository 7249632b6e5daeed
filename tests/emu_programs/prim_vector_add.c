/* Vector addition written the way the PrIM benchmarks write their kernels: arguments in a
 * __host struct, MRAM addresses kept as uint32_t from DPU_MRAM_HEAP_POINTER and cast back
 * to __mram_ptr pointers. B += A over `size` bytes; A then B from the heap. */
#include <stdint.h>
#include <stdio.h>
#include <defs.h>
#include <mram.h>
#include <alloc.h>
#include <perfcounter.h>
#include <barrier.h>

#define BLOCK_SIZE_LOG2 8
#define BLOCK_SIZE (1 << BLOCK_SIZE_LOG2)
typedef struct { uint32_t size; uint32_t transfer_size; } dpu_arguments_t;
__host dpu_arguments_t DPU_INPUT_ARGUMENTS;
BARRIER_INIT(my_barrier, NR_TASKLETS);

int main(void) {
    unsigned int tasklet_id = me();
    if (tasklet_id == 0) mem_reset();
    barrier_wait(&my_barrier);
    uint32_t input_size_dpu_bytes = DPU_INPUT_ARGUMENTS.size;
    uint32_t base_tasklet = tasklet_id << BLOCK_SIZE_LOG2;
    uint32_t mram_base_addr_A = (uint32_t)DPU_MRAM_HEAP_POINTER;
    uint32_t mram_base_addr_B = (uint32_t)(DPU_MRAM_HEAP_POINTER + input_size_dpu_bytes);
    int32_t *cache_A = (int32_t *) mem_alloc(BLOCK_SIZE);
    int32_t *cache_B = (int32_t *) mem_alloc(BLOCK_SIZE);
    for (unsigned int byte_index = base_tasklet; byte_index < input_size_dpu_bytes; byte_index += BLOCK_SIZE * NR_TASKLETS) {
        uint32_t l_size_bytes = (byte_index + BLOCK_SIZE >= input_size_dpu_bytes) ? (input_size_dpu_bytes - byte_index) : BLOCK_SIZE;
        mram_read((__mram_ptr void const*)(mram_base_addr_A + byte_index), cache_A, l_size_bytes);
        mram_read((__mram_ptr void const*)(mram_base_addr_B + byte_index), cache_B, l_size_bytes);
        for (unsigned int i = 0; i < l_size_bytes / 4; i++) cache_B[i] = cache_A[i] + cache_B[i];
        mram_write(cache_B, (__mram_ptr void*)(mram_base_addr_B + byte_index), l_size_bytes);
    }
    return 0;
}
