/* Each tasklet of each DPU runs `work` on its own item. */
#include <defs.h>
#include <stdint.h>
#include "work.h"

__host uint32_t iterations;
__host uint32_t first_item; /* this DPU's first item */
__host uint32_t results[NR_TASKLETS];

int main(void)
{
    results[me()] = work(seed_of(first_item + me()), iterations);
    return 0;
}
