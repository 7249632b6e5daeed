/* <stdio.h> alone brings the DPU attributes, as the SDK's does. */
#include <stdio.h>

__host unsigned int seen;
__mram unsigned long long in_mram[4] = {1, 2, 3, 4};
__mram_noinit unsigned char scratch[64];
__dma_aligned unsigned char buffer[8];

int main(void)
{
    seen = (unsigned int)in_mram[2] + (unsigned int)sizeof(scratch) + (unsigned int)sizeof(buffer);
    printf("stdio seen=%u\n", seen);
    return 0;
}
