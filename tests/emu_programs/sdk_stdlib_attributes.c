/* <stdlib.h> alone brings the DPU attributes, as the SDK's does. */
#include <stdlib.h>

__host unsigned int seen;
__mram unsigned long long in_mram[4] = {5, 6, 7, 8};
__mram_noinit unsigned char scratch[64];
__dma_aligned unsigned char buffer[8];

int main(void)
{
    seen = (unsigned int)in_mram[1] + (unsigned int)abs(-(int)sizeof(scratch)) + (unsigned int)sizeof(buffer);
    return 0;
}
