/* A DPU program that only owns MRAM: the host moves data into DPU_MRAM_HEAP_POINTER. */
#include <mram.h>
int main(void)
{
    return 0;
}
