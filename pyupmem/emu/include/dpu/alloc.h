/* alloc.h: WRAM allocators. mem_alloc is an 8-aligned bump allocator over the WRAM
 * left after the program's variables and the tasklets' stacks; asking for more than
 * is left faults the DPU. The heap is kept across launches. As the SDK's, this header
 * also brings the fixed-size block allocator (fsb_allocator.h) and the buddy allocator
 * (buddy_alloc.h), which take their memory from mem_alloc. */
#ifndef _DPUSYSCORE_ALLOC_H_
#define _DPUSYSCORE_ALLOC_H_

#include <_dpu_diag_string.h>
#include <stddef.h>

#include <buddy_alloc.h>
#include <fsb_allocator.h>

#include <attributes.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

void *__dpurt_mem_alloc(size_t size, const char *file, int line);
#define mem_alloc(size) __dpurt_mem_alloc((size), __DPURT_FILE, __LINE__)
/** Frees everything mem_alloc gave; returns the start of the heap, as the SDK's does. */
void *mem_reset(void);

#ifdef __cplusplus
}
#endif

#endif
