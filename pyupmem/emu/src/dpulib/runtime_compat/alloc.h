/* The alloc.h that src/runtime/memory.c was written against, for the runtime's build only
 * (pyupmem/emu/__init__.py puts this folder first on the runtime's include path). That
 * file still carries the old malloc-backed buddy_* and fsb_* (with an fsb_allocator_t of
 * its own); the definitions in src/dpulib/ replace them in libdpurt.so. Delete this
 * folder once memory.c no longer defines buddy_* and fsb_*. */
/* alloc.h: WRAM allocators. mem_alloc is an 8-aligned bump allocator over the WRAM
 * left after the program's variables and the tasklets' stacks; asking for more than
 * is left faults the DPU. The heap is kept across launches. */
#ifndef _DPUSYSCORE_ALLOC_H_
#define _DPUSYSCORE_ALLOC_H_

#include <stddef.h>
#include <attributes.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

void *__dpurt_mem_alloc(size_t size, const char *file, int line);
#define mem_alloc(size) __dpurt_mem_alloc((size), __FILE__, __LINE__)
/** Frees everything mem_alloc gave. */
void mem_reset(void);

void buddy_init(size_t size_of_heap);
void *buddy_alloc(size_t size);
void buddy_free(void *pointer);
void *buddy_realloc(void *pointer, size_t size);
void buddy_reset(void);

typedef struct __dpurt_fsb *fsb_allocator_t;
fsb_allocator_t fsb_alloc(unsigned int block_size, unsigned int nb_of_blocks);
void *fsb_get(fsb_allocator_t allocator);
void fsb_free(fsb_allocator_t allocator, void *pointer);

#ifdef __cplusplus
}
#endif

#endif
