/* buddy_alloc.h: the SDK's buddy allocator over a WRAM heap of its own.
 *
 * buddy_init(size) takes the heap from mem_alloc, once: later calls do nothing. The heap
 * is a power of two bytes (a size that is not one is rounded down; the SDK is tested
 * with 2048 to 32768). buddy_alloc(size) gives a block of the next power of two, at
 * least 16 bytes, 8-aligned (fit for mram_read/mram_write), or NULL with errno set:
 * EINVAL for a size of 0 or over the heap (or before buddy_init), ENOMEM when no block
 * is free. buddy_free(p) frees the block that holds p (any address inside it); NULL
 * does nothing, and a pointer that is not allocated sets errno to EINVAL and frees
 * nothing. buddy_realloc(p, size) keeps the contents up to the smaller size; with p NULL
 * it is buddy_alloc, with size 0 it frees p and returns p. buddy_reset() frees every
 * block. The functions take a lock, so tasklets may call them concurrently. */
#ifndef DPUSYSCORE_BUDDY_ALLOC_H
#define DPUSYSCORE_BUDDY_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

void buddy_init(size_t size_of_heap);
void buddy_reset(void);
void *buddy_alloc(size_t size);
void buddy_free(void *pointer);
void *buddy_realloc(void *ptr, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* DPUSYSCORE_BUDDY_ALLOC_H */
