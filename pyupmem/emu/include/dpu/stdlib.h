/* stdlib.h for DPU programs: the C library's stdlib.h and, as the SDK's, the DPU
 * attributes (__host, __mram, __mram_noinit, __dma_aligned ...). */
#ifndef _DPUSYSCORE_STDLIB_H_
#define _DPUSYSCORE_STDLIB_H_

#include_next <stdlib.h>

#include <attributes.h>

#endif
