/* soft_cache.h: the SDK's software cache header. The SDK's current runtime keeps only its
 * declarations of the MRAM attributes (__mram, __mram_ptr ...), which this header brings;
 * on the emulator an __mram_ptr dereference reads MRAM directly. */
#ifndef DPUSYSCORE_SOFT_CACHE_H
#define DPUSYSCORE_SOFT_CACHE_H

#include <attributes.h>

#endif /* DPUSYSCORE_SOFT_CACHE_H */
