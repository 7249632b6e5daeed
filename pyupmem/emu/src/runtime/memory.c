/* memory.c: MRAM DMA with the hardware's rules, and the WRAM allocators. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <alloc.h>
#include <mram.h>
#include <mram_unaligned.h>
#include <seqread.h>

#include "runtime.h"

#define MRAM_END ((uintptr_t)EMU_MRAM_BASE + EMU_MRAM_SIZE)

static int in_mram(uintptr_t address, size_t length)
{
    return address >= EMU_MRAM_BASE && address <= MRAM_END && length <= MRAM_END - address;
}

void __dpurt_check_mram_address(const void *mram_addr, const char *what, const char *file, int line)
{
    if (!in_mram((uintptr_t)mram_addr, 1))
        __dpurt_fault(file, line, "%s: address %p is outside MRAM [0x%08x, 0x%08lx)", what, mram_addr,
                      EMU_MRAM_BASE, (unsigned long)MRAM_END);
}

static void check_dma(const char *what, uintptr_t mram, uintptr_t wram, unsigned n, const char *file,
                      int line)
{
    if (n < 8 || n > 2048 || n % 8 != 0)
        __dpurt_fault(file, line, "%s: size %u is not a multiple of 8 in 8..2048 bytes", what, n);
    if (mram % 8 != 0)
        __dpurt_fault(file, line, "%s: MRAM address 0x%lx is not 8-byte aligned", what,
                      (unsigned long)mram);
    if (wram % 8 != 0)
        __dpurt_fault(file, line, "%s: WRAM address %p is not 8-byte aligned (declare the buffer "
                      "__dma_aligned)", what, (void *)wram);
    if (!in_mram(mram, n))
        __dpurt_fault(file, line, "%s: MRAM range [0x%lx, 0x%lx) is outside MRAM [0x%08x, 0x%08lx)",
                      what, (unsigned long)mram, (unsigned long)(mram + n), EMU_MRAM_BASE,
                      (unsigned long)MRAM_END);
    if (in_mram(wram, 1))
        __dpurt_fault(file, line, "%s: the WRAM buffer %p is an MRAM address", what, (void *)wram);
}

void __dpurt_mram_read(const void *from, void *to, unsigned int n, const char *file, int line)
{
    check_dma("mram_read", (uintptr_t)from, (uintptr_t)to, n, file, line);
    memcpy(to, from, n);
}

void __dpurt_mram_write(const void *from, void *to, unsigned int n, const char *file, int line)
{
    check_dma("mram_write", (uintptr_t)to, (uintptr_t)from, n, file, line);
    memcpy(to, from, n);
}

void *__dpurt_mram_read_unaligned(const void *from, void *buffer, unsigned int n, const char *file,
                                  int line)
{
    uintptr_t start = (uintptr_t)from & ~(uintptr_t)7;
    uintptr_t end = ((uintptr_t)from + n + 7) & ~(uintptr_t)7;
    if (n > 2048)
        __dpurt_fault(file, line, "mram_read_unaligned: size %u is above 2048 bytes", n);
    if (!in_mram(start, end - start))
        __dpurt_fault(file, line, "mram_read_unaligned: [%p, +%u) is outside MRAM", from, n);
    memcpy(buffer, (const void *)start, end - start);
    return (char *)buffer + ((uintptr_t)from - start);
}

void __dpurt_mram_write_unaligned(const void *from, void *dest, unsigned int n, const char *file,
                                  int line)
{
    if (n > 2048)
        __dpurt_fault(file, line, "mram_write_unaligned: size %u is above 2048 bytes", n);
    if (!in_mram((uintptr_t)dest, n))
        __dpurt_fault(file, line, "mram_write_unaligned: [%p, +%u) is outside MRAM", dest, n);
    memcpy(dest, from, n);
}

/* The mem_alloc heap: WRAM left after the program's variables and its stacks. */
static char *heap;
static uint32_t heap_used;
static uint32_t heap_size;

void __dpurt_heap_init(void)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS;
#ifdef MAP_32BIT
    flags |= MAP_32BIT;
#endif
    heap = mmap(NULL, EMU_WRAM_SIZE, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (heap == MAP_FAILED)
        heap = mmap(NULL, EMU_WRAM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (heap == MAP_FAILED)
        __dpurt_fault(NULL, 0, "cannot allocate the WRAM heap");
    uint32_t taken = __dpurt.wram_used + __dpurt.nr_tasklets * EMU_STACK_SIZE_DEFAULT;
    heap_size = taken < EMU_WRAM_SIZE ? (EMU_WRAM_SIZE - taken) & ~7u : 0;
    heap_used = 0;
}

void *__dpurt_mem_alloc(size_t size, const char *file, int line)
{
    size_t rounded = (size + 7) & ~(size_t)7;
    if (rounded < size || rounded > heap_size - heap_used)
        __dpurt_fault(file, line,
                      "mem_alloc(%zu): WRAM exhausted, %u bytes left (64 KiB minus %u of variables "
                      "and %u x %u of stacks)",
                      size, heap_size - heap_used, __dpurt.wram_used, __dpurt.nr_tasklets,
                      EMU_STACK_SIZE_DEFAULT);
    void *result = heap + heap_used;
    heap_used += (uint32_t)rounded;
    return result;
}

void mem_reset(void)
{
    heap_used = 0;
}

/* buddy_* and fsb_* take their memory from the host's heap: the emulator does not
 * model their fragmentation, only their interface. */
void buddy_init(size_t size_of_heap)
{
    (void)size_of_heap;
}

void *buddy_alloc(size_t size)
{
    return malloc(size);
}

void buddy_free(void *pointer)
{
    free(pointer);
}

void *buddy_realloc(void *pointer, size_t size)
{
    return realloc(pointer, size);
}

void buddy_reset(void)
{
}

struct __dpurt_fsb {
    unsigned block_size;
    void *free_list;
};

fsb_allocator_t fsb_alloc(unsigned int block_size, unsigned int nb_of_blocks)
{
    unsigned size = block_size < sizeof(void *) ? (unsigned)sizeof(void *) : (block_size + 7) & ~7u;
    struct __dpurt_fsb *allocator = mem_alloc(sizeof(*allocator));
    char *blocks = mem_alloc((size_t)size * nb_of_blocks);
    allocator->block_size = size;
    allocator->free_list = NULL;
    for (unsigned i = nb_of_blocks; i-- > 0;) {
        void **block = (void **)(blocks + (size_t)i * size);
        *block = allocator->free_list;
        allocator->free_list = block;
    }
    return allocator;
}

void *fsb_get(fsb_allocator_t allocator)
{
    void **block = allocator->free_list;
    if (block != NULL)
        allocator->free_list = *block;
    return block;
}

void fsb_free(fsb_allocator_t allocator, void *pointer)
{
    *(void **)pointer = allocator->free_list;
    allocator->free_list = pointer;
}
