/* stdint.h of the DPU's C library: the compiler's own definitions for the DPU's data model
 * (ILP32: intptr_t, size_t and long are 32 bits; int64_t is long long). */
#ifndef _DPUSYSCORE_STDINT_H_
#define _DPUSYSCORE_STDINT_H_
#include <stdint-gcc.h>
#endif
