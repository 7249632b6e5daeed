/* stdint.h of the DPU's C library: the compiler's own definitions for the DPU's data model
 * (intptr_t and size_t are 32 bits; int64_t is long long, 64 bits as the DPU's long). */
#ifndef _DPUSYSCORE_STDINT_H_
#define _DPUSYSCORE_STDINT_H_
#include <stdint-gcc.h>
#endif
