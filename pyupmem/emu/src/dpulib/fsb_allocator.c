/* fsb_allocator.c: the fixed-size block allocator of fsb_allocator.h. The allocator is the
 * address of a word, just after its blocks, that holds the first free block; each free
 * block holds the next one in its first word (NULL ends the list). */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include <alloc.h>
#include <fsb_allocator.h>
#include <mutex.h>

/* One lock for every allocator, as in the SDK. Any byte is a mutex. */
static uint8_t fsb_lock;

fsb_allocator_t fsb_alloc(unsigned int block_size, unsigned int nb_of_blocks)
{
    assert(block_size <= 0xFFFFFFF8u && "fsb_alloc: block size too large (__FAULT_ALLOC_HEAP_FULL__)");
    uint32_t size = block_size == 0 ? 8u : (block_size + 7u) & ~7u;
    uint64_t bytes = (uint64_t)size * nb_of_blocks;
    /* more than the address space: mem_alloc faults with WRAM exhausted */
    size_t request = bytes > SIZE_MAX - sizeof(void *) ? SIZE_MAX : (size_t)bytes + sizeof(void *);
    char *memory = mem_alloc(request);
    fsb_allocator_t allocator = (fsb_allocator_t)(void *)(memory + (size_t)bytes);
    void *next = NULL;
    for (uint32_t i = nb_of_blocks; i-- > 0;) {
        void **block = (void **)(void *)(memory + (size_t)i * size);
        *block = next;
        next = block;
    }
    *allocator = next;
    return allocator;
}

void *fsb_get(fsb_allocator_t allocator)
{
    mutex_lock(&fsb_lock);
    void **block = (void **)*allocator;
    if (block != NULL)
        *allocator = *block;
    mutex_unlock(&fsb_lock);
    return block;
}

void fsb_free(fsb_allocator_t allocator, void *ptr)
{
    mutex_lock(&fsb_lock);
    *(void **)ptr = *allocator;
    *allocator = ptr;
    mutex_unlock(&fsb_lock);
}
