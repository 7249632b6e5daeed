// The DPU-side SDK headers from a C++ DPU program: PROFILING_INIT, the FIFO definitions
// and the allocators, which C++ builds differently from C (no array range designators,
// static_assert).
#include <buddy_alloc.h>
#include <fsb_allocator.h>
#include <profiling.h>
#include <stdio.h>
#include <wramfifo.h>

INPUT_FIFO_INIT(in, 3, 8)
OUTPUT_FIFO_INIT(out, 3, 8)
PROFILING_INIT(sec);

int main()
{
    buddy_init(2048);
    char *block = static_cast<char *>(buddy_alloc(40));
    char *next = static_cast<char *>(buddy_alloc(40));
    fsb_allocator_t allocator = fsb_alloc(8, 2);
    bool ok = sec.start[NR_TASKLETS - 1] == PROFILING_RESET_VALUE && sec.count[0] == 0;
    printf("profiling_init=%d buddy=%d fsb=%d fifo=%d,%u\n", ok, static_cast<int>(next - block),
           fsb_get(allocator) != nullptr, is_input_fifo_empty(&in), out.ptr_size);
    return 0;
}
