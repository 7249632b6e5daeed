/* memory.c: MRAM DMA with the hardware's rules, and the WRAM allocators. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <alloc.h>
#include <mram.h>
#include <mram_unaligned.h>
#include <seqread.h>

#include "runtime.h"

#define MRAM_END ((uintptr_t)EMU_MRAM_BASE + EMU_MRAM_SIZE)

#define MRAM_OFFSET_MASK ((uintptr_t)EMU_MRAM_SIZE - 1)
/* DPU instructions that set up and issue a DMA (address arithmetic, ldma/sdma), for the
 * accesses the runtime makes DMAs of (an __mram_ptr access). mram_read and mram_write
 * are one ldma/sdma on a DPU (the SDK's mram.h), which the program's call to them counts
 * already (toolchain/dpu_cost_as.py): they charge nothing more. */
#define DMA_ISSUE_COST 3

static int in_mram(uintptr_t address, size_t length)
{
    return address >= EMU_MRAM_BASE && address <= MRAM_END && length <= MRAM_END - address;
}

/* Where the worker keeps the MRAM byte at a DPU address inside MRAM (address_spaces.c). */
static char *mram_at(uintptr_t address)
{
    return __dpurt_mram + (address - EMU_MRAM_BASE);
}

void __dpurt_check_mram_address(const void *mram_addr, const char *what, const char *file, int line)
{
    if (!in_mram((uintptr_t)mram_addr, 1))
        __dpurt_fault(file, line, "%s: address %p is outside MRAM [0x%08x, 0x%08lx)", what, mram_addr,
                      EMU_MRAM_BASE, (unsigned long)MRAM_END);
}

/* The bytes the DMA engine moves for a requested length: the length travels as
 * ((n >> 3) - 1) & 0xff, in 8-byte units, so it wraps below 8 and above 2048. */
static unsigned dma_bytes(unsigned n)
{
    return ((((n >> 3) - 1u) & 0xffu) + 1u) * 8u;
}

/* A documented DMA rule is broken: a fault in strict mode, else a warning (once per
 * source line) and the hardware's behaviour. */
#define BROKEN_RULE(rule, file, line, hardware_does, ...)                                           \
    do {                                                                                           \
        if (__dpurt.strict)                                                                        \
            __dpurt_fault(file, line, __VA_ARGS__);                                                \
        char broken_[256];                                                                         \
        snprintf(broken_, sizeof(broken_), __VA_ARGS__);                                           \
        __dpurt_warn_once(rule, file, line, "%s; %s", broken_, hardware_does);                     \
    } while (0)

static void dma(const char *what, bool to_mram, uintptr_t mram, uintptr_t wram, unsigned n,
                const char *file, int line)
{
    unsigned bytes = n;
    if (n < 8 || n > 2048 || n % 8 != 0) {
        bytes = dma_bytes(n);
        char does[96];
        snprintf(does, sizeof(does), "the hardware moves %u bytes", bytes);
        BROKEN_RULE("size", file, line, does, "%s: size %u is not a multiple of 8 in 8..2048 bytes",
                    what, n);
    }
    if (mram % 8 != 0) {
        BROKEN_RULE("mram-align", file, line, "the hardware ignores the low 3 address bits",
                    "%s: MRAM address 0x%lx is not 8-byte aligned", what, (unsigned long)mram);
        mram &= ~(uintptr_t)7;
    }
    if (wram % 8 != 0) {
        BROKEN_RULE("wram-align", file, line, "the hardware ignores the low 3 address bits",
                    "%s: WRAM address %p is not 8-byte aligned (declare the buffer __dma_aligned)",
                    what, (void *)wram);
        wram &= ~(uintptr_t)7;
    }
    if (!in_mram(mram, 1)) {
        uintptr_t wrapped = EMU_MRAM_BASE + (mram & MRAM_OFFSET_MASK);
        char does[96];
        snprintf(does, sizeof(does), "the hardware uses the low 26 bits: MRAM offset 0x%lx",
                 (unsigned long)(wrapped - EMU_MRAM_BASE));
        BROKEN_RULE("mram-range", file, line, does,
                    "%s: MRAM range [0x%lx, 0x%lx) is outside MRAM [0x%08x, 0x%08lx)", what,
                    (unsigned long)mram, (unsigned long)(mram + n), EMU_MRAM_BASE,
                    (unsigned long)MRAM_END);
        mram = wrapped;
    }
    if (!in_mram(mram, bytes))
        __dpurt_fault(file, line, "%s: MRAM range [0x%lx, 0x%lx) runs past the end of the 64 MiB MRAM",
                      what, (unsigned long)mram, (unsigned long)(mram + bytes));
    if (in_mram(wram, 1))
        __dpurt_fault(file, line, "%s: the WRAM buffer %p is an MRAM address", what, (void *)wram);
    __dpurt_turn();
    if (to_mram)
        memmove(mram_at(mram), (const void *)wram, bytes);
    else
        memmove((void *)wram, mram_at(mram), bytes);
    __dpurt_dma_booked(to_mram ? DMA_WRITE_LATENCY : DMA_READ_LATENCY, bytes);
}

/* An __mram_ptr access or one of an __mram variable (a %gs: operand in the program's code,
 * toolchain/dpu_cost_as.py): the DPU compiler makes it a DMA of the 8-byte unit through a
 * WRAM temporary, a read for a load and a write for a store (both for a read-modify-write).
 * The access itself is the program's own instruction, right after. */
void __dpurt_direct_mram(uint32_t kind)
{
    __dpurt_charge(DMA_ISSUE_COST);
    if (kind & 1u)
        __dpurt_dma(DMA_READ_LATENCY, 8);
    if (kind & 2u)
        __dpurt_dma(DMA_WRITE_LATENCY, 8);
}

void __dpurt_mram_read(const void *from, void *to, unsigned int n, const char *file, int line)
{
    dma("mram_read", false, (uintptr_t)from, (uintptr_t)to, n, file, line);
}

void __dpurt_mram_write(const void *from, void *to, unsigned int n, const char *file, int line)
{
    dma("mram_write", true, (uintptr_t)to, (uintptr_t)from, n, file, line);
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
    memcpy(buffer, mram_at(start), end - start);
    __dpurt_dma(DMA_READ_LATENCY, (uint32_t)(end - start));
    return (char *)buffer + ((uintptr_t)from - start);
}

void __dpurt_mram_write_unaligned(const void *from, void *dest, unsigned int n, const char *file,
                                  int line)
{
    if (n > 2048)
        __dpurt_fault(file, line, "mram_write_unaligned: size %u is above 2048 bytes", n);
    if (!in_mram((uintptr_t)dest, n))
        __dpurt_fault(file, line, "mram_write_unaligned: [%p, +%u) is outside MRAM", dest, n);
    memcpy(mram_at((uintptr_t)dest), from, n);
    /* a read of the surrounding 8-byte units, then their write */
    uint32_t span = (uint32_t)((((uintptr_t)dest + n + 7) & ~(uintptr_t)7) - ((uintptr_t)dest & ~(uintptr_t)7));
    __dpurt_dma(DMA_READ_LATENCY, span);
    __dpurt_dma(DMA_WRITE_LATENCY, span);
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
    uint32_t taken = __dpurt.wram_used + __dpurt.stacks_size;
    uint32_t wram = __dpurt.wram_size ? __dpurt.wram_size : EMU_WRAM_SIZE;
    heap_size = taken < wram ? (wram - taken) & ~7u : 0;
    heap_used = 0;
}

void *__dpurt_mem_alloc(size_t size, const char *file, int line)
{
    size_t rounded = (size + 7) & ~(size_t)7;
    if (rounded < size || rounded > heap_size - heap_used)
        __dpurt_fault(file, line,
                      "mem_alloc(%zu): WRAM exhausted, %u bytes left (%u of WRAM minus %u of "
                      "variables and %u of the %u tasklets' stacks)",
                      size, heap_size - heap_used, __dpurt.wram_size ? __dpurt.wram_size : EMU_WRAM_SIZE,
                      __dpurt.wram_used, __dpurt.stacks_size, __dpurt.nr_tasklets);
    void *result = heap + heap_used;
    heap_used += (uint32_t)rounded;
    return result;
}

void *mem_reset(void)
{
    heap_used = 0;
    return heap;
}
