/* fsb_allocator.h: the SDK's fixed-size block allocator.
 *
 * fsb_alloc(block_size, nb_of_blocks) takes room for nb_of_blocks blocks from mem_alloc
 * (so it faults when WRAM is exhausted), each block_size bytes rounded up to a multiple
 * of 8 (at least 8), and returns the allocator: a pointer to the head of its free list,
 * which the free blocks chain through their first word. fsb_get takes a block (NULL when
 * none is left), fsb_free gives one back; both take a lock, so tasklets may share an
 * allocator. Nothing checks that a freed block came from the allocator. */
#ifndef DPUSYSCORE_FBS_ALLOC_H
#define DPUSYSCORE_FBS_ALLOC_H

#ifdef __cplusplus
extern "C" {
#endif

typedef void **fsb_allocator_t;

fsb_allocator_t fsb_alloc(unsigned int block_size, unsigned int nb_of_blocks);
void *fsb_get(fsb_allocator_t allocator);
void fsb_free(fsb_allocator_t allocator, void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* DPUSYSCORE_FBS_ALLOC_H */
