/* seqread.h: sequential readers of MRAM through a WRAM cache. The emulator reads
 * MRAM in place, so a pointer returned here stays valid for SEQREAD_CACHE_SIZE bytes. */
#ifndef _DPUSYSCORE_SEQREAD_H_
#define _DPUSYSCORE_SEQREAD_H_

#include <alloc.h>
#include <attributes.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* C++ DPU programs: the runtime has C linkage */
#endif

#ifndef SEQREAD_CACHE_SIZE
#define SEQREAD_CACHE_SIZE 256
#endif
#if SEQREAD_CACHE_SIZE < 32 || SEQREAD_CACHE_SIZE > 1024 || (SEQREAD_CACHE_SIZE & (SEQREAD_CACHE_SIZE - 1))
#error "SEQREAD_CACHE_SIZE must be a power of two in 32..1024"
#endif

typedef uintptr_t seqreader_buffer_t;
typedef struct {
    seqreader_buffer_t wram_cache;
    uintptr_t mram_addr;
} seqreader_t;

void __dpurt_check_mram_address(const void *mram_addr, const char *what, const char *file, int line);
/* A DMA on the DPU's engine: a switch point and its modelled time. */
void __dpurt_dma(uint32_t latency, uint32_t bytes);

#define seqread_alloc() ((seqreader_buffer_t)mem_alloc(2 * SEQREAD_CACHE_SIZE))
#define seqread_init(cache, mram_addr, reader)                                                     \
    __dpurt_seqread_init((cache), (const void *)(mram_addr), (reader), __FILE__, __LINE__)
#define seqread_seek(mram_addr, reader)                                                            \
    __dpurt_seqread_init((reader)->wram_cache, (const void *)(mram_addr), (reader), __FILE__, __LINE__)

static inline void *__dpurt_seqread_init(seqreader_buffer_t cache, const void *mram_addr,
                                         seqreader_t *reader, const char *file, int line)
{
    __dpurt_check_mram_address(mram_addr, "seqread", file, line);
    reader->wram_cache = cache;
    reader->mram_addr = (uintptr_t)mram_addr;
    __dpurt_dma(77, 2 * SEQREAD_CACHE_SIZE); /* the cache fill */
    return (void *)mram_addr;
}
static inline void *seqread_get(void *ptr, uint32_t inc, seqreader_t *reader)
{
    (void)reader;
    char *next = (char *)ptr + inc;
    /* Crossing into the next cache-sized window is where the hardware refills its cache. */
    if (((uintptr_t)ptr ^ (uintptr_t)next) & ~(uintptr_t)(SEQREAD_CACHE_SIZE - 1))
        __dpurt_dma(77, SEQREAD_CACHE_SIZE);
    return next;
}
static inline __mram_ptr void *seqread_tell(void *ptr, seqreader_t *reader)
{
    (void)reader;
    return ptr;
}

#ifdef __cplusplus
}
#endif

#endif
