/* memmram_utils.h: the SDK's alignment helpers for WRAM/MRAM copies. DMA_ALIGNED(x)
 * rounds x up to the 8 bytes a DMA needs. MIN and ALIGN are left alone when another
 * header (glibc's <sys/param.h>) defined them first. */
#ifndef _DPUSYSCORE_MEMMRAM_UTILS_H_
#define _DPUSYSCORE_MEMMRAM_UTILS_H_

#define ALIGN_MASK(x, mask) (((x) + (mask)) & ~(mask))
#ifndef ALIGN
#define ALIGN(x, a) ALIGN_MASK((x), (a) - 1)
#endif
#define DMA_ALIGNMENT 8
#define DMA_OFF_MASK (DMA_ALIGNMENT - 1)
#define DMA_ALIGNED(x) ALIGN(x, DMA_ALIGNMENT)

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif

/* The bytes of the SDK's MRAM copy helpers' WRAM cache. */
#define MRAM_CACHE_SIZE 8

#endif /* _DPUSYSCORE_MEMMRAM_UTILS_H_ */
